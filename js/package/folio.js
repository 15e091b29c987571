// Folio's browser API: Vectra 0.15's browser entry point ("vectra/browser")
// over Folio's engine compiled to WebAssembly. The classes and functions
// have Vectra's names, constructor options and Promise-returning methods,
// so a page written for Vectra works after changing its import.
//
// Loading this module loads folio.wasm from beside it (top-level await).
// Objects made here hold Go objects; they are released when garbage
// collected.
import { bridge, create, own, call, callSync, unwrap } from "./bridge.js";

// ---- Indexes ----

// The codec a LocalIndex is given when none is: JSON, Vectra's default.
// Folio reads a codec's extension only (".pb" is protobuf, anything else
// JSON); its own codecs write Vectra's bytes.
const JSON_CODEC = Object.freeze({ extension: ".json" });
const isProtobuf = (codec) => codec?.extension === ".pb" || codec?.extension === "pb";

export class LocalIndex {
  /**
   * @param {string} folderPath
   * @param {string} [indexName] "index" and the codec's extension by default
   * @param {object} [storage] a FileStorage; IndexedDBStorage("vectra-db") by default
   * @param {object} [codec] Vectra's codec objects: one whose extension is ".pb" is protobuf, else JSON
   * @param {object} [options] Folio's engine options: quantizedScan, scanCodes, rerankFactor, narrowFactor, strictFilters, partitions, targetRecall, fieldWeights
   */
  constructor(folderPath, indexName, storage, codec, options) {
    this._folderPath = folderPath;
    this._storage = storage ?? new IndexedDBStorage("vectra-db");
    this._codec = codec ?? JSON_CODEC;
    this._indexName = indexName || (isProtobuf(this._codec) ? "index.pb" : "index.json");
    if (new.target === LocalIndex) {
      own(this, create("LocalIndex", folderPath, indexName || "", this._storage, this._codec, options));
    }
  }
  get folderPath() { return this._folderPath; }
  get indexName() { return this._indexName; }
  get storage() { return this._storage; }
  get codec() { return this._codec; }

  beginUpdate() { return call(this, "beginUpdate"); }
  cancelUpdate() { callSync(this, "cancelUpdate"); }
  createIndex(config = { version: 1 }) { return call(this, "createIndex", config); }
  deleteIndex() { return call(this, "deleteIndex"); }
  deleteItem(id) { return call(this, "deleteItem", id); }
  deleteItems(ids) { return call(this, "deleteItems", Array.from(ids)); }
  endUpdate() { return call(this, "endUpdate"); }
  getIndexStats() { return call(this, "getIndexStats"); }
  getItem(id) { return call(this, "getItem", id); }
  insertItem(item) { return call(this, "insertItem", item); }
  batchInsertItems(items) { return call(this, "batchInsertItems", items); }
  isIndexCreated() { return call(this, "isIndexCreated"); }
  listItems() { return call(this, "listItems"); }
  listItemsByMetadata(filter) { return call(this, "listItemsByMetadata", filter); }
  queryItems(vector, query, topK, filter, isBm25) {
    // Older Vectra releases took (vector, topK, filter); that form works too.
    if (typeof query === "number") return call(this, "queryItems", vector, "", query, topK, false);
    return call(this, "queryItems", vector, query ?? "", topK, filter, !!isBm25);
  }
  upsertItem(item) { return call(this, "upsertItem", item); }
}

export class LocalDocumentIndex extends LocalIndex {
  /**
   * @param {object} config folderPath, indexName, embeddings, tokenizer,
   *   chunkingConfig, storage, codec, as Vectra's; quantizedScan,
   *   scanCodes, rerankFactor, narrowFactor, strictFilters, partitions, targetRecall and fieldWeights are Folio's
   *   engine options.
   */
  constructor(config) {
    super(config?.folderPath, config?.indexName, config?.storage, config?.codec);
    this._embeddings = config?.embeddings;
    this._tokenizer = config?.tokenizer ?? config?.chunkingConfig?.tokenizer;
    own(this, create("LocalDocumentIndex", config && { ...config, storage: this._storage, codec: this._codec }));
    if (!this._tokenizer) this._tokenizer = new GPT3Tokenizer();
  }
  get embeddings() { return this._embeddings; }
  get tokenizer() { return this._tokenizer; }

  isCatalogCreated() { return call(this, "isCatalogCreated"); }
  getDocumentId(uri) { return call(this, "getDocumentId", uri); }
  getDocumentUri(documentId) { return call(this, "getDocumentUri", documentId); }
  getCatalogStats() { return call(this, "getCatalogStats"); }
  deleteDocument(uri) { return call(this, "deleteDocument", uri); }
  async upsertDocument(uri, text, docType, metadata, options) {
    const d = await call(this, "upsertDocument", uri, text, docType ?? "", metadata, options);
    return own(new LocalDocument(this, d.id, d.uri), d.h);
  }
  async listDocuments() {
    return this._results(await call(this, "listDocuments"));
  }
  async queryDocuments(query, options) {
    return this._results(await call(this, "queryDocuments", query, options));
  }
  _results(list) {
    return list.map((d) => own(new LocalDocumentResult(this, d.id, d.uri, d.chunks, this._tokenizer, d.score), d.h));
  }
}

export class LocalDocument {
  constructor(index, id, uri) {
    this._index = index;
    this._id = id;
    this._uri = uri;
  }
  get folderPath() { return this._index.folderPath; }
  get id() { return this._id; }
  get uri() { return this._uri; }
  getLength() { return call(this, "getLength"); }
  hasMetadata() { return call(this, "hasMetadata"); }
  loadMetadata() { return call(this, "loadMetadata"); }
  loadText() { return call(this, "loadText"); }
}

export class LocalDocumentResult extends LocalDocument {
  static CONNECTOR = "\n\n...\n\n";
  constructor(index, id, uri, chunks, tokenizer, score) {
    super(index, id, uri);
    this._chunks = chunks;
    this._tokenizer = tokenizer;
    this._score = score ?? 0;
  }
  get chunks() { return this._chunks; }
  get score() { return this._score; }
  // Folio's: the best passages, whole lines around what the query matched
  // (options: maxTokens 400, maxSections 1; vectraSections for Vectra's).
  render(options) { return call(this, "render", options); }
  renderAllSections(maxTokens) { return call(this, "renderAllSections", maxTokens); }
  renderSections(maxTokens, maxSections, overlappingChunks = true) {
    return call(this, "renderSections", maxTokens, maxSections, overlappingChunks);
  }
}

// ---- Storage ----

class GoStorage {
  createFile(filePath, content) { return call(this, "createFile", filePath, content); }
  createFolder(folderPath) { return call(this, "createFolder", folderPath); }
  deleteFile(filePath) { return call(this, "deleteFile", filePath); }
  deleteFolder(folderPath) { return call(this, "deleteFolder", folderPath); }
  getDetails(path) { return call(this, "getDetails", path); }
  listFiles(folderPath, filter = "all") { return call(this, "listFiles", folderPath, filter); }
  pathExists(path) { return call(this, "pathExists", path); }
  /** @returns {Promise<Uint8Array>} (Vectra answers a Buffer, a Uint8Array too) */
  readFile(filePath) { return call(this, "readFile", filePath); }
  upsertFile(filePath, content) { return call(this, "upsertFile", filePath, content); }
}

/** The page's IndexedDB database, laid out as Vectra's IndexedDBStorage lays it out. */
export class IndexedDBStorage extends GoStorage {
  constructor(dbName = "vectra-db") {
    super();
    own(this, create("IndexedDBStorage", dbName));
  }
  close() { callSync(this, "close"); }
  destroy() { return call(this, "destroy"); }
}

/** Files in memory, gone with the page. */
export class VirtualFileStorage extends GoStorage {
  constructor() {
    super();
    own(this, create("VirtualFileStorage"));
  }
}

/**
 * The files below a folder of a web host, read with HTTP Range requests:
 * an index published with `folio publish` and uploaded to any static host
 * opens from it and answers queries, reading a few parts of its files.
 * Read-only: writes reject. A relative URL is relative to the page.
 */
export class HttpFileStorage extends GoStorage {
  constructor(baseURL) {
    super();
    own(this, create("HttpFileStorage", new URL(baseURL, globalThis.location?.href).href));
  }
}

export class FileStorageUtilities {
  static async ensureFolderExists(storage, folderPath) {
    if (!(await storage.pathExists(folderPath))) await storage.createFolder(folderPath);
  }
  static getFileType(filePath) { return unwrap(bridge.static("getFileType", filePath)); }
  static getFileTypeFromContentType(contentType) {
    return unwrap(bridge.static("getFileTypeFromContentType", contentType));
  }
  static async tryDeleteFile(storage, filePath) {
    try {
      await storage.deleteFile(filePath);
      return undefined;
    } catch (err) {
      return err;
    }
  }
}

// ---- Tokenizers, splitting, embeddings ----

/** o200k_base, as Vectra's GPT3Tokenizer (gpt-tokenizer's default). */
export class GPT3Tokenizer {
  constructor() { own(this, create("GPT3Tokenizer")); }
  encode(text) { return callSync(this, "encode", text); }
  decode(tokens) { return callSync(this, "decode", tokens); }
}

export class TextSplitter {
  constructor(config) {
    this._config = config ?? {};
    own(this, create("TextSplitter", config));
  }
  split(text) { return callSync(this, "split", text); }
}

export class OpenAIEmbeddings {
  /** Vectra's options, filled with its defaults; an OpenAI variant needs its model. */
  constructor(options) {
    this.maxTokens = options?.maxTokens ?? 500;
    const defaults = { retryPolicy: [2000, 5000] };
    if (options?.azureApiKey) defaults.azureApiVersion = "2023-05-15";
    this.options = Object.assign(defaults, options);
    if (options?.azureApiKey && typeof this.options.azureEndpoint === "string") {
      this.options.azureEndpoint = this.options.azureEndpoint.trim().replace(/\/$/, "");
    }
    own(this, create("OpenAIEmbeddings", this.options));
  }
  /** With options.logRequests, the request and the response go to the console, as Vectra logs them. */
  async createEmbeddings(inputs) {
    const log = this.options.logRequests;
    if (log) {
      console.log("EMBEDDINGS REQUEST:");
      console.log(inputs);
    }
    const start = Date.now();
    const response = await call(this, "createEmbeddings", inputs);
    if (log) {
      console.log("RESPONSE:");
      console.log("status:", response?.status);
      console.log("duration:", Date.now() - start, "ms");
      console.log(response);
    }
    return response;
  }
}

export class HashEmbeddings {
  /**
   * Folio's offline model: each word of a text hashed into one of `dimensions` (384) values.
   * It matches words, not meaning; no key, no download, no network.
   */
  constructor(options) {
    this.options = Object.assign({ dimensions: 384, maxTokens: 500 }, options);
    this.maxTokens = this.options.maxTokens;
    own(this, create("HashEmbeddings", this.options));
  }
  createEmbeddings(inputs) { return call(this, "createEmbeddings", inputs); }
}

export class BrowserWebFetcher {
  constructor(config) { own(this, create("BrowserWebFetcher", config)); }
  fetch(uri, onDocument) { return call(this, "fetch", uri, onDocument); }
}

export class ItemSelector {
  /** As Vectra: over the overlapping prefix of the two vectors (norms too); NaN when a norm is 0. */
  static cosineSimilarity(vector1, vector2) {
    const n = Math.min(vector1.length, vector2.length);
    const a = vector1.slice(0, n), b = vector2.slice(0, n);
    const norm1 = ItemSelector.normalize(a), norm2 = ItemSelector.normalize(b);
    if (norm1 === 0 || norm2 === 0) return NaN;
    return ItemSelector.dotProduct(a, b) / (norm1 * norm2);
  }
  static normalize(vector) {
    let sum = 0;
    for (const v of vector) sum += v * v;
    return Math.sqrt(sum);
  }
  /** As Vectra: NaN when a norm is 0. */
  static normalizedCosineSimilarity(vector1, norm1, vector2, norm2) {
    if (norm1 === 0 || norm2 === 0) return NaN;
    return ItemSelector.dotProduct(vector1, vector2) / (norm1 * norm2);
  }
  static select(metadata, filter) { return unwrap(bridge.static("select", metadata, filter)); }
  static dotProduct(a, b) {
    let sum = 0;
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) sum += a[i] * b[i];
    return sum;
  }
}

// ---- Paths ----

const path = (name) => (...args) => unwrap(bridge.static("path." + name, ...args));

/** Storage path helpers, as Vectra's browser pathUtils ("/" and "\\" separate). */
export const pathUtils = {
  sep: "/",
  join: (...parts) => path("join")(parts),
  basename: path("basename"),
  dirname: path("dirname"),
  extname: path("extname"),
  normalize: path("normalize"),
  isAbsolute: path("isAbsolute"),
  relative: path("relative"),
};

export { TransformersEmbeddings, TransformersTokenizer } from "./transformers.js";
