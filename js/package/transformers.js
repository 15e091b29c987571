// TransformersEmbeddings and TransformersTokenizer in a page: a local
// BERT-style encoder (such as all-MiniLM-L6-v2) run by onnxruntime-web
// from the files beside this module, tokenized and pooled by Folio's Go
// code (the same as its native ONNX adapter). A model is read from the URL
// or folder the page names, or, named by hub id, from the page's site
// (modelPath) or else the Hugging Face hub, as transformers.js does, and
// kept in the browser's Cache Storage so that a reload fetches nothing.
import { bridge, create, own, callSync, unwrap } from "./bridge.js";

const DEFAULT_MODEL = "Xenova/all-MiniLM-L6-v2";
// Model ids are looked up under this folder of the page's site, as
// transformers.js's env.localModelPath ("/models/").
const DEFAULT_MODEL_PATH = "/models/";
// The hub, its URL layout and the Cache Storage cache, as transformers.js
// names them (a model one of them cached serves the other).
const DEFAULT_REMOTE_HOST = "https://huggingface.co/";
const REMOTE_PATH_TEMPLATE = "{model}/resolve/{revision}/";
const CACHE_NAME = "transformers-cache";

let ortPromise;

// onnxruntime-web's two files, looked for beside this module (make js puts
// them there; a bundled page serves them beside folio.wasm). The names are
// not literals in import() or new URL(), so bundlers neither bundle the
// 12 MB runtime into every page nor fail on a package without it: a page
// that never creates a TransformersEmbeddings never loads it.
const ORT_MODULE = "ort.wasm.bundle.min.mjs";
const ORT_WASM = "ort-wasm-simd-threaded.wasm";
const beside = (name) => new URL("./" + name, import.meta.url).href;

// loadOrt imports onnxruntime-web (its WebAssembly build) from beside this
// module, once, and points it at its .wasm file there.
function loadOrt() {
  ortPromise ??= import(/* @vite-ignore */ /* webpackIgnore: true */ beside(ORT_MODULE)).then((ort) => {
    // The bundle carries its JavaScript glue; only the .wasm is fetched.
    ort.env.wasm.wasmPaths = { wasm: beside(ORT_WASM) };
    if (!globalThis.crossOriginIsolated) ort.env.wasm.numThreads = 1;
    return ort;
  });
  return ortPromise;
}

const isLocation = (model) => /^[a-z][a-z0-9+.-]*:|^\.{0,2}\//i.test(model);

// modelURL is the folder of a model: model itself when it is a URL or a
// path ("https://…", "/…", "./…", "../…"), else modelPath + model.
function modelURL(model, modelPath) {
  const page = globalThis.location?.href ?? import.meta.url;
  const base = isLocation(model) ? new URL(model, page) : new URL(model, new URL(modelPath ?? DEFAULT_MODEL_PATH, page));
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  return base;
}

// remoteURL is the hub folder of a model id at a revision.
function remoteURL(model, opts) {
  const host = opts.remoteHost ?? DEFAULT_REMOTE_HOST;
  const path = REMOTE_PATH_TEMPLATE.replace("{model}", model).replace("{revision}", encodeURIComponent(opts.revision ?? "main"));
  return new URL(path, host.endsWith("/") ? host : host + "/");
}

// A hub id is owner/name or name: letters, digits, '.', '_', '-'.
const HUB_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)?$/;

// sources are where a model's files are looked for, in order: the
// browser's cache (a file the hub gave before), the page's site, the hub.
async function sources(opts) {
  const list = [];
  if (isLocation(opts.model)) return [{ kind: "folder", base: modelURL(opts.model, opts.modelPath) }];
  if (!HUB_ID.test(opts.model) || opts.model.includes("..")) {
    throw new Error(`folio: model ${JSON.stringify(opts.model)} is neither a URL, a path nor a hub id (owner/name)`);
  }
  const remote = opts.allowRemoteModels !== false ? remoteURL(opts.model, opts) : undefined;
  if (remote && opts.useBrowserCache !== false && globalThis.caches) {
    list.push({ kind: "cache", base: remote, cache: await caches.open(CACHE_NAME) });
  }
  if (opts.allowLocalModels !== false) list.push({ kind: "folder", base: modelURL(opts.model, opts.modelPath) });
  if (remote) list.push({ kind: "hub", base: remote, cache: list.find((s) => s.kind === "cache")?.cache });
  return list;
}

function missing(model, names, srcs, opts) {
  const where = srcs.filter((s) => s.kind !== "cache").map((s) => s.base.href).join(" or ");
  const remote = opts.allowRemoteModels === false ? " (allowRemoteModels is false: the hub was not asked)" : "";
  return new Error(`folio: model ${model}: none of ${names.join(", ")} under ${where}${remote}`);
}

// checksum is what a response's ETag says of its body: a SHA-256 (the
// hub's large files) or a git blob hash (its small ones); undefined when
// it says neither.
function checksum(res) {
  const tag = (res.headers.get("X-Linked-Etag") ?? res.headers.get("ETag") ?? "").replace(/^W\//, "").replaceAll('"', "").toLowerCase();
  if (/^[0-9a-f]{64}$/.test(tag)) return { kind: "SHA-256", hex: tag };
  if (/^[0-9a-f]{40}$/.test(tag)) return { kind: "SHA-1", hex: tag, git: true };
  return undefined;
}

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

async function verify(url, bytes, res) {
  const length = res.headers.get("Content-Length");
  if (length !== null && res.headers.get("Content-Encoding") === null && Number(length) !== bytes.length) {
    throw new Error(`folio: model file ${url}: ${bytes.length} bytes, the hub says ${length}`);
  }
  const sum = checksum(res);
  if (!sum || !globalThis.crypto?.subtle) return;
  let data = bytes;
  if (sum.git) {
    const head = new TextEncoder().encode(`blob ${bytes.length}\0`);
    data = new Uint8Array(head.length + bytes.length);
    data.set(head);
    data.set(bytes, head.length);
  }
  const got = hex(await crypto.subtle.digest(sum.kind, data));
  if (got !== sum.hex) throw new Error(`folio: model file ${url}: ${sum.kind} ${got}, the hub says ${sum.hex}: not the hub's bytes`);
}

// readBody reads a response, reporting transformers.js's "progress".
async function readBody(res, report, name) {
  const total = Number(res.headers.get("Content-Length") ?? 0);
  if (!res.body?.getReader) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    report({ status: "progress", file: name, loaded, total, progress: total ? (100 * loaded) / total : 0 });
  }
  const bytes = new Uint8Array(loaded);
  let off = 0;
  for (const p of parts) {
    bytes.set(p, off);
    off += p.length;
  }
  return bytes;
}

// fetchFile reads one file of a model from the first source that has it;
// a file the hub gives is checked and put in the cache. A file no source
// has is undefined, or an error when required.
async function fetchFile(srcs, report, name, required) {
  report({ status: "initiate", file: name });
  for (const src of srcs) {
    const url = new URL(name, src.base);
    if (src.kind === "cache") {
      const hit = await src.cache.match(url.href);
      if (!hit) continue;
      if (hit.status === 404) break; // the hub has no such file: asked once
      const bytes = new Uint8Array(await hit.arrayBuffer());
      report({ status: "done", file: name, progress: 100 });
      return bytes;
    }
    if (src.kind === "hub") report({ status: "download", file: name });
    // Files from the hub are kept in Cache Storage: not twice over in the
    // HTTP cache too.
    const res = await fetch(url, src.kind === "hub" ? { cache: "no-store" } : undefined);
    if (res.status === 404) {
      if (src.kind === "hub" && !required) await src.cache?.put(url.href, new Response(null, { status: 404 }));
      continue;
    }
    if (!res.ok) {
      if (src.kind === "folder" && srcs.at(-1) !== src) continue;
      throw new Error(`folio: model file ${url}: HTTP ${res.status}`);
    }
    const bytes = await readBody(res, report, name);
    if (src.kind === "hub") {
      await verify(url, bytes, res);
      if (src.cache) {
        await src.cache.put(url.href, new Response(bytes, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(bytes.length) } }));
      }
    }
    report({ status: "done", file: name, progress: 100 });
    return bytes;
  }
  if (required) throw new Error(`folio: model file ${name}: not found`);
  return undefined;
}

/** The WordPiece tokenizer of a TransformersEmbeddings model. */
export class TransformersTokenizer {
  /**
   * Vectra wraps a transformers.js PreTrainedTokenizer; Folio's wraps the
   * model's own tokenizer: get one from TransformersEmbeddings.getTokenizer().
   */
  constructor(tokenizer) {
    if (!tokenizer || typeof tokenizer._h !== "number") {
      throw new TypeError("TransformersTokenizer: get it from TransformersEmbeddings.getTokenizer()");
    }
    this._tokenizer = tokenizer; // keeps the Go tokenizer alive
    Object.defineProperty(this, "_h", { value: tokenizer._h, enumerable: false });
  }
  /** Token ids with [CLS] first and [SEP] last, never truncated. */
  encode(text) { return callSync(this, "encode", text); }
  /** The text of ids, special tokens skipped. */
  decode(tokens) { return callSync(this, "decode", tokens); }
}

/** A local transformer encoder as an embeddings model. */
export class TransformersEmbeddings {
  constructor(session, tokenizer, options, ort) {
    this._session = session;
    this._tokenizer = tokenizer;
    this._options = options;
    this._ort = ort;
    this.maxTokens = options.maxTokens ?? 512;
    const names = session.outputNames;
    this._output = ["last_hidden_state", "token_embeddings"].find((n) => names.includes(n)) ?? names[0];
  }

  /**
   * Loads a model: options are Vectra's (model, maxTokens, device, dtype,
   * normalize, pooling, progressCallback) and transformers.js's where a
   * model id is looked for: the browser's Cache Storage (useBrowserCache,
   * true), the page's site under modelPath ("/models/"; allowLocalModels,
   * true), then the hub (allowRemoteModels, true; remoteHost
   * "https://huggingface.co/", revision "main"). A file from the hub is
   * checked against its ETag's checksum and cached, so a reload fetches
   * nothing. A model that is a URL or path is read from there alone. The
   * folder holds tokenizer.json (or vocab.txt), tokenizer_config.json,
   * config.json and onnx/model.onnx (model_fp16, model_quantized or
   * model_q4 for those dtypes).
   */
  static async create(options = {}) {
    const opts = { model: DEFAULT_MODEL, pooling: "mean", normalize: true, dtype: "fp32", device: "auto", ...options };
    if (opts.device === "gpu" || opts.device === "webgpu") {
      throw new Error(`folio: TransformersEmbeddings: device ${opts.device}: this build runs models on the CPU (WebAssembly); use "wasm", "cpu" or "auto"`);
    }
    const report = (p) => opts.progressCallback?.({ name: opts.model, ...p });
    const srcs = await sources(opts);
    const files = {};
    for (const name of ["tokenizer.json", "vocab.txt", "tokenizer_config.json", "config.json"]) {
      if (name === "vocab.txt" && files["tokenizer.json"]) continue;
      const bytes = await fetchFile(srcs, report, name, false);
      if (bytes) files[name] = bytes;
    }
    if (!files["tokenizer.json"] && !files["vocab.txt"]) throw missing(opts.model, ["tokenizer.json", "vocab.txt"], srcs, opts);
    const tokenizer = own({}, create("WordPieceTokenizer", files, srcs.at(-1).base.href));
    let model;
    const candidates = unwrap(bridge.static("modelFiles", opts.dtype));
    for (const name of candidates) {
      model = await fetchFile(srcs, report, "onnx/" + name, false);
      if (model) break;
    }
    if (!model) throw missing(opts.model, candidates.map((n) => "onnx/" + n), srcs, opts);
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
    report({ status: "ready", progress: 100 });
    return new TransformersEmbeddings(session, tokenizer, opts, ort);
  }

  get model() { return this._options.model; }

  /** The model's tokenizer (a new wrapper, the same tokenizer, on each call). */
  getTokenizer() { return new TransformersTokenizer(this._tokenizer); }

  /** One vector per input, truncated to the model's length, as Vectra's answer. */
  async createEmbeddings(inputs) {
    const texts = Array.isArray(inputs) ? inputs : [inputs];
    try {
      const output = [];
      for (let i = 0; i < texts.length; i += 32) output.push(...(await this._embed(texts.slice(i, i + 32))));
      return { status: "success", output, model: this.model };
    } catch (err) {
      return { status: "error", message: "error generating embeddings: " + (err?.message ?? String(err)), model: this.model };
    }
  }

  async _embed(texts) {
    if (texts.length === 0) return [];
    const { ids, mask, seq, lengths } = callSync(this._tokenizer, "encodeBatch", texts);
    const shape = [texts.length, seq];
    const feeds = {};
    for (const name of this._session.inputNames) {
      if (name.includes("input_ids")) feeds[name] = new this._ort.Tensor("int64", ids, shape);
      else if (name.includes("attention_mask")) feeds[name] = new this._ort.Tensor("int64", mask, shape);
      else if (name.includes("token_type_ids")) feeds[name] = new this._ort.Tensor("int64", new BigInt64Array(ids.length), shape);
      else if (name.includes("position_ids")) {
        const pos = new BigInt64Array(ids.length);
        for (let i = 0; i < pos.length; i++) pos[i] = BigInt(i % seq);
        feeds[name] = new this._ort.Tensor("int64", pos, shape);
      } else throw new Error(`folio: model input ${name} is not one a text encoder takes`);
    }
    const results = await this._session.run(feeds, [this._output]);
    const hidden = results[this._output];
    if (hidden.type !== "float32" || hidden.dims.length !== 3) {
      throw new Error(`folio: model output ${this._output} is ${hidden.type} ${JSON.stringify(hidden.dims)}, want float32 [batch, sequence, hidden]`);
    }
    const [batch, s, dim] = hidden.dims;
    const vectors = unwrap(bridge.static("pool", hidden.data, batch, s, dim, lengths, this._options.pooling, this._options.normalize));
    return vectors.map((v) => Array.from(v));
  }
}
