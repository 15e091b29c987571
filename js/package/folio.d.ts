// Folio's browser API: the classes and functions of Vectra 0.15's browser
// entry point ("vectra/browser"), with the same names, constructor options
// and Promise-returning methods, over Folio's engine in WebAssembly.

export type MetadataTypes = number | string | boolean;

export interface MetadataFilter {
  $eq?: number | string | boolean;
  $ne?: number | string | boolean;
  $gt?: number;
  $gte?: number;
  $lt?: number;
  $lte?: number;
  $in?: (number | string)[];
  $nin?: (number | string)[];
  $and?: MetadataFilter[];
  $or?: MetadataFilter[];
  [key: string]: unknown;
}

export interface IndexItem<TMetadata = Record<string, MetadataTypes>> {
  id: string;
  metadata: TMetadata;
  vector: number[];
  norm: number;
  metadataFile?: string;
}

export interface QueryResult<TMetadata = Record<string, MetadataTypes>> {
  item: IndexItem<TMetadata>;
  score: number;
}

export interface IndexStats {
  version: number;
  metadata_config: { indexed?: string[] };
  items: number;
}

export interface IndexData {
  version: number;
  metadata_config: { indexed?: string[] };
  items: IndexItem[];
}

export interface CreateIndexConfig {
  version: number;
  deleteIfExists?: boolean;
  metadata_config?: { indexed?: string[] };
  /** Folio's: "file" (Vectra's index file, the default) or "segmented" (Folio's own layout, whose commits write only what changed; Vectra cannot read it). */
  layout?: "file" | "segmented";
}

export type EmbeddingsResponseStatus = "success" | "error" | "rate_limited" | "cancelled";

export interface EmbeddingsResponse {
  status: EmbeddingsResponseStatus;
  output?: number[][];
  message?: string;
  model?: string;
  usage?: Record<string, any>;
}

/** Any object with these two members is an embeddings model. */
export interface EmbeddingsModel {
  readonly maxTokens: number;
  createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse>;
}

/** Any object with these two synchronous methods is a tokenizer. */
export interface Tokenizer {
  decode(tokens: number[]): string;
  encode(text: string): number[];
}

export interface TextChunk {
  text: string;
  tokens: number[];
  startPos: number;
  endPos: number;
  startOverlap: number[];
  endOverlap: number[];
}

export interface TextFetcher {
  fetch(uri: string, onDocument: (uri: string, text: string, docType?: string) => Promise<boolean>): Promise<boolean>;
}

export interface DocumentChunkMetadata {
  documentId: string;
  startPos: number;
  endPos: number;
  [key: string]: MetadataTypes;
}

export interface DocumentCatalogStats {
  version: number;
  documents: number;
  chunks: number;
  metadata_config: { indexed?: string[] };
}

export interface DocumentTextSection {
  text: string;
  tokenCount: number;
  score: number;
  isBm25: boolean;
  /** The headings above the passage, outermost first, joined by " > " (Folio's passages; absent for Vectra's sections). */
  headings?: string;
}

export type FileType = string;
export type ListFilesFilter = "files" | "folders" | "all";

export interface FileDetails {
  name: string;
  path: string;
  isFolder: boolean;
  fileType?: FileType;
}

/** Any object with these methods is a storage; Folio calls them and awaits each. */
export interface FileStorage {
  createFile(filePath: string, content: Uint8Array | string): Promise<void>;
  createFolder(folderPath: string): Promise<void>;
  deleteFile(filePath: string): Promise<void>;
  deleteFolder(folderPath: string): Promise<void>;
  getDetails(fileOrFolderPath: string): Promise<FileDetails>;
  listFiles(folderPath: string, filter?: ListFilesFilter): Promise<FileDetails[]>;
  pathExists(fileOrFolderPath: string): Promise<boolean>;
  /** Folio's storages answer a Uint8Array (Vectra's a Buffer, which is one). */
  readFile(filePath: string): Promise<Uint8Array>;
  upsertFile(filePath: string, content: Uint8Array | string): Promise<void>;
}

/**
 * Vectra's codec objects: one whose extension is ".pb" selects protobuf, anything else JSON.
 * Folio reads the extension only: its own codecs write Vectra's bytes, and a codec's methods
 * are not called (a codec of another format is not supported).
 */
export interface IndexCodec {
  readonly extension: string;
}

/** Folio's engine options, accepted beside Vectra's. */
export interface EngineOptions {
  /** Scan int8 codes, then re-rank the best candidates exactly. */
  quantizedScan?: boolean;
  /** The codes the quantized scan reads first: "int8" (quantizedScan's), "int4" (half a byte a dimension) or "int4+int8" (both: int8 narrows the 4-bit candidates). */
  scanCodes?: "int8" | "int4" | "int4+int8";
  /** Candidates re-ranked per result with quantizedScan or scanCodes. */
  rerankFactor?: number;
  /** With scanCodes "int4+int8": candidates per result the 4-bit pass hands the int8 codes. */
  narrowFactor?: number;
  /**
   * Group the rows of an index of 50,000 rows or more by nearest centroid, so that a query reads the codes
   * of the few partitions nearest it; every score stays exact (implies scanCodes "int4" unless given).
   */
  partitions?: boolean;
  /** With partitions: the share of the top 10 of a scan of every row that a query finds on average (default 0.99). */
  targetRecall?: number;
  /** Reject filters on unknown operators instead of matching nothing. */
  strictFilters?: boolean;
  /**
   * How much a query word in a chunk's headings, its document's title or its document's name counts
   * beside one in its text, in rank fusion's keyword ranking (default headings 1.5, title 2, name 2;
   * a field left out keeps its default; all 0: the text alone).
   */
  fieldWeights?: { headings?: number; title?: number; name?: number };
}

export declare class LocalIndex<TMetadata extends Record<string, MetadataTypes> = Record<string, MetadataTypes>> {
  /**
   * storage defaults to IndexedDBStorage("vectra-db"), codec to JSON. The
   * fifth argument takes Folio's engine options (Vectra's bm25Factory and
   * docReader hooks are not used).
   */
  constructor(folderPath: string, indexName?: string, storage?: FileStorage, codec?: IndexCodec, options?: EngineOptions);
  get folderPath(): string;
  get indexName(): string;
  /** The storage given, or the IndexedDBStorage("vectra-db") made for the index. */
  get storage(): FileStorage;
  /** The codec given, or JSON's ({ extension: ".json" }). */
  get codec(): IndexCodec;
  beginUpdate(): Promise<void>;
  cancelUpdate(): void;
  createIndex(config?: CreateIndexConfig): Promise<void>;
  deleteIndex(): Promise<void>;
  deleteItem(id: string): Promise<void>;
  deleteItems(ids: Iterable<string>): Promise<void>;
  endUpdate(): Promise<void>;
  getIndexStats(): Promise<IndexStats>;
  getItem<TItemMetadata extends TMetadata = TMetadata>(id: string): Promise<IndexItem<TItemMetadata> | undefined>;
  insertItem<TItemMetadata extends TMetadata = TMetadata>(item: Partial<IndexItem<TItemMetadata>>): Promise<IndexItem<TItemMetadata>>;
  batchInsertItems<TItemMetadata extends TMetadata = TMetadata>(items: Partial<IndexItem<TItemMetadata>>[]): Promise<IndexItem[]>;
  isIndexCreated(): Promise<boolean>;
  listItems<TItemMetadata extends TMetadata = TMetadata>(): Promise<IndexItem<TItemMetadata>[]>;
  listItemsByMetadata<TItemMetadata extends TMetadata = TMetadata>(filter: MetadataFilter): Promise<IndexItem<TItemMetadata>[]>;
  queryItems<TItemMetadata extends TMetadata = TMetadata>(vector: number[] | Float32Array, query: string, topK: number, filter?: MetadataFilter, isBm25?: boolean): Promise<QueryResult<TItemMetadata>[]>;
  queryItems<TItemMetadata extends TMetadata = TMetadata>(vector: number[] | Float32Array, topK: number, filter?: MetadataFilter): Promise<QueryResult<TItemMetadata>[]>;
  upsertItem<TItemMetadata extends TMetadata = TMetadata>(item: Partial<IndexItem<TItemMetadata>>): Promise<IndexItem<TItemMetadata>>;
}

export interface TextSplitterConfig {
  separators: string[];
  keepSeparators: boolean;
  chunkSize: number;
  chunkOverlap: number;
  tokenizer: Tokenizer;
  docType?: string;
}

/**
 * With neither isBm25 nor fusion given, queryDocuments ranks as the folio command does: vector and
 * keyword matches together by reciprocal rank fusion (scores of about 1/60). isBm25 given alone keeps
 * Vectra's meaning: true is its hybrid search, false its vector search.
 */
export interface DocumentQueryOptions {
  maxDocuments?: number;
  maxChunks?: number;
  filter?: MetadataFilter;
  isBm25?: boolean;
  /** Folio's: "rrf" ranks vector and keyword matches together by reciprocal rank fusion (the default). */
  fusion?: "rrf";
  /** Folio's: reciprocal rank fusion's k (default 60). */
  fusionK?: number;
}

/** Folio's options of LocalDocumentResult.render. */
export interface RenderOptions {
  /** Token budget of each passage (default 400; 2000 with vectraSections). */
  maxTokens?: number;
  /** Most passages (default 1). */
  maxSections?: number;
  /** Render Vectra's sections (renderSections) instead of passages. */
  vectraSections?: boolean;
  /** With vectraSections, render overlapping chunks (default true). */
  overlappingChunks?: boolean;
}

export interface LocalDocumentIndexConfig extends EngineOptions {
  folderPath: string;
  indexName?: string;
  embeddings?: EmbeddingsModel;
  tokenizer?: Tokenizer;
  chunkingConfig?: Partial<TextSplitterConfig>;
  storage?: FileStorage;
  codec?: IndexCodec;
}

export declare class LocalDocumentIndex extends LocalIndex<DocumentChunkMetadata> {
  constructor(config: LocalDocumentIndexConfig);
  get embeddings(): EmbeddingsModel | undefined;
  get tokenizer(): Tokenizer;
  isCatalogCreated(): Promise<boolean>;
  getDocumentId(uri: string): Promise<string | undefined>;
  getDocumentUri(documentId: string): Promise<string | undefined>;
  getCatalogStats(): Promise<DocumentCatalogStats>;
  deleteDocument(uri: string): Promise<void>;
  upsertDocument(uri: string, text: string, docType?: string, metadata?: Record<string, MetadataTypes>, options?: { force?: boolean }): Promise<LocalDocument>;
  listDocuments(): Promise<LocalDocumentResult[]>;
  queryDocuments(query: string, options?: DocumentQueryOptions): Promise<LocalDocumentResult[]>;
}

export declare class LocalDocument {
  constructor(index: LocalDocumentIndex, id: string, uri: string);
  get folderPath(): string;
  get id(): string;
  get uri(): string;
  getLength(): Promise<number>;
  hasMetadata(): Promise<boolean>;
  loadMetadata(): Promise<Record<string, MetadataTypes>>;
  loadText(): Promise<string>;
}

export declare class LocalDocumentResult extends LocalDocument {
  static readonly CONNECTOR: "\n\n...\n\n";
  get chunks(): QueryResult<DocumentChunkMetadata>[];
  get score(): number;
  renderAllSections(maxTokens: number): Promise<DocumentTextSection[]>;
  renderSections(maxTokens: number, maxSections: number, overlappingChunks?: boolean): Promise<DocumentTextSection[]>;
  /** Folio's: the best passages, whole lines cut from the text around what the query matched. */
  render(options?: RenderOptions): Promise<DocumentTextSection[]>;
}

export declare class TextSplitter {
  /** 400-token chunks, 40 tokens of overlap, separators dropped, GPT3Tokenizer, as Vectra's. */
  constructor(config?: Partial<TextSplitterConfig>);
  split(text: string): TextChunk[];
}

/** o200k_base, as Vectra's GPT3Tokenizer (gpt-tokenizer's default encoding). */
export declare class GPT3Tokenizer implements Tokenizer {
  decode(tokens: number[]): string;
  encode(text: string): number[];
}

export interface BaseOpenAIEmbeddingsOptions {
  dimensions?: number;
  logRequests?: boolean;
  maxTokens?: number;
  /** Delays between retries, in milliseconds. */
  retryPolicy?: number[];
  /** Only headers are used. */
  requestConfig?: { headers?: Record<string, string> };
}
export interface OSSEmbeddingsOptions extends BaseOpenAIEmbeddingsOptions {
  ossModel: string;
  ossEndpoint: string;
}
export interface OpenAIEmbeddingsOptions extends BaseOpenAIEmbeddingsOptions {
  apiKey: string;
  model: string;
  organization?: string;
  endpoint?: string;
}
export interface AzureOpenAIEmbeddingsOptions extends BaseOpenAIEmbeddingsOptions {
  azureApiKey: string;
  azureEndpoint: string;
  azureDeployment: string;
  azureApiVersion?: string;
}

export declare class OpenAIEmbeddings implements EmbeddingsModel {
  readonly maxTokens: number;
  readonly options: OSSEmbeddingsOptions | OpenAIEmbeddingsOptions | AzureOpenAIEmbeddingsOptions;
  constructor(options: OSSEmbeddingsOptions | OpenAIEmbeddingsOptions | AzureOpenAIEmbeddingsOptions);
  /** A failed call answers status "error" or "rate_limited" with a message; it does not reject. */
  createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse>;
}

export interface HashEmbeddingsOptions {
  /** The length of every vector: 384 by default. */
  dimensions?: number;
  /** The token budget of one createEmbeddings call: 500 by default. */
  maxTokens?: number;
}

/**
 * Folio's offline model: each word of a text hashed into one of `dimensions` values. It matches
 * words, not meaning ("car" and "automobile" are unrelated), with no key, download or network:
 * for a first page, tests and keyword-grade search. Vectors equal those of the folio command's
 * --hash-dims model of the same dimensions.
 */
export declare class HashEmbeddings implements EmbeddingsModel {
  readonly maxTokens: number;
  readonly options: Required<HashEmbeddingsOptions>;
  constructor(options?: HashEmbeddingsOptions);
  createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse>;
}

export interface TransformersEmbeddingsOptions {
  /** A hub model id (owner/name), or the URL or path of a model folder. */
  model?: string;
  /** Where model ids are looked for on the page's site: "/models/" by default. */
  modelPath?: string;
  /** Look for model ids under modelPath first: true by default. */
  allowLocalModels?: boolean;
  /** Fetch model ids not found elsewhere from the hub: true by default, as transformers.js does. */
  allowRemoteModels?: boolean;
  /** The hub (or a mirror): "https://huggingface.co/" by default. */
  remoteHost?: string;
  /** The model's branch, tag or commit on the hub: "main" by default. */
  revision?: string;
  /** Keep files from the hub in Cache Storage ("transformers-cache"), so a reload fetches nothing: true by default. */
  useBrowserCache?: boolean;
  maxTokens?: number;
  /** "auto", "cpu" and "wasm" run on WebAssembly; "gpu" is rejected. */
  device?: "auto" | "gpu" | "cpu" | "wasm";
  dtype?: "fp32" | "fp16" | "q8" | "q4";
  normalize?: boolean;
  pooling?: "mean" | "cls";
  /** transformers.js's shape: status initiate, download, progress (loaded, total, progress 0–100), done, ready. */
  progressCallback?: (progress: { status: string; name?: string; file?: string; progress?: number; loaded?: number; total?: number }) => void;
}

export declare class TransformersEmbeddings implements EmbeddingsModel {
  readonly maxTokens: number;
  private constructor();
  static create(options?: TransformersEmbeddingsOptions): Promise<TransformersEmbeddings>;
  getTokenizer(): TransformersTokenizer;
  createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse>;
  get model(): string;
}

export declare class TransformersTokenizer implements Tokenizer {
  /** Folio's wraps the model's own tokenizer: get one from TransformersEmbeddings.getTokenizer(). */
  private constructor();
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

export declare class ItemSelector {
  static cosineSimilarity(vector1: number[], vector2: number[]): number;
  static normalize(vector: number[]): number;
  static normalizedCosineSimilarity(vector1: number[], norm1: number, vector2: number[], norm2: number): number;
  static select(metadata: Record<string, MetadataTypes>, filter: MetadataFilter): boolean;
}

export declare class FileStorageUtilities {
  static ensureFolderExists(storage: FileStorage, folderPath: string): Promise<void>;
  static getFileType(filePath: string): FileType | undefined;
  static getFileTypeFromContentType(contentType: string): FileType | undefined;
  static tryDeleteFile(storage: FileStorage, filePath: string): Promise<Error | undefined>;
}

/** Files in memory, gone with the page. */
export interface VirtualFileStorage extends FileStorage {}
export declare class VirtualFileStorage implements FileStorage {}

/**
 * The files below a folder of a web host, read with HTTP Range requests: an
 * index published with `folio publish` and uploaded to any static host opens
 * from it and answers queries, reading a few parts of its files. Read-only:
 * writes reject. A relative URL is relative to the page.
 */
export interface HttpFileStorage extends FileStorage {}
export declare class HttpFileStorage implements FileStorage {
  constructor(baseURL: string);
}

/** The page's IndexedDB database, laid out as Vectra's IndexedDBStorage lays it out. */
export interface IndexedDBStorage extends FileStorage {}
export declare class IndexedDBStorage implements FileStorage {
  constructor(dbName?: string);
  close(): void;
  destroy(): Promise<void>;
}

export interface BrowserWebFetcherConfig {
  htmlToMarkdown?: boolean;
  headers?: Record<string, string>;
  mode?: RequestMode;
  credentials?: RequestCredentials;
}

export declare class BrowserWebFetcher implements TextFetcher {
  constructor(config?: BrowserWebFetcherConfig);
  fetch(uri: string, onDocument: (uri: string, text: string, docType?: string) => Promise<boolean>): Promise<boolean>;
}

export declare const pathUtils: {
  sep: "/";
  join(...parts: string[]): string;
  basename(filePath: string, ext?: string): string;
  dirname(filePath: string): string;
  extname(filePath: string): string;
  normalize(filePath: string): string;
  isAbsolute(filePath: string): boolean;
  relative(from: string, to: string): string;
};
