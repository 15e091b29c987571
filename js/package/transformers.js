// TransformersEmbeddings and TransformersTokenizer in a page: a local
// BERT-style encoder (such as all-MiniLM-L6-v2) run by onnxruntime-web
// from the files beside this module, tokenized and pooled by Folio's Go
// code (the same as its native ONNX adapter). Models are read from the URL
// or folder the page names; nothing is downloaded from a model hub.
import { bridge, create, own, callSync, unwrap } from "./bridge.js";

const DEFAULT_MODEL = "Xenova/all-MiniLM-L6-v2";
// Model ids are looked up under this folder of the page's site, as
// transformers.js's env.localModelPath ("/models/").
const DEFAULT_MODEL_PATH = "/models/";

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

// modelURL is the folder of a model: model itself when it is a URL or a
// path ("https://…", "/…", "./…", "../…"), else modelPath + model.
function modelURL(model, modelPath) {
  const page = globalThis.location?.href ?? import.meta.url;
  const asURL = /^[a-z][a-z0-9+.-]*:|^\.{0,2}\//i.test(model);
  const base = asURL ? new URL(model, page) : new URL(model, new URL(modelPath ?? DEFAULT_MODEL_PATH, page));
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  return base;
}

function missing(model, names, base) {
  return new Error(`folio: model ${model}: none of ${names.join(", ")} under ${base.href}; ` +
    "models are never downloaded from a hub: serve the model's files there");
}

async function fetchFile(url, report, name, required) {
  report({ status: "initiate", file: name });
  const res = await fetch(url);
  if (!res.ok) {
    if (required) throw new Error(`folio: model file ${url}: HTTP ${res.status}`);
    return undefined;
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  report({ status: "done", file: name, progress: 100 });
  return bytes;
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
   * normalize, pooling, progressCallback) and modelPath, where model ids
   * are looked up ("/models/" by default; a model that is a URL or path is
   * read from there). The folder holds tokenizer.json (or vocab.txt),
   * tokenizer_config.json, config.json and onnx/model.onnx (model_fp16,
   * model_quantized or model_q4 for those dtypes).
   */
  static async create(options = {}) {
    const opts = { model: DEFAULT_MODEL, pooling: "mean", normalize: true, dtype: "fp32", device: "auto", ...options };
    if (opts.device === "gpu" || opts.device === "webgpu") {
      throw new Error(`folio: TransformersEmbeddings: device ${opts.device}: this build runs models on the CPU (WebAssembly); use "wasm", "cpu" or "auto"`);
    }
    const report = (p) => opts.progressCallback?.(p);
    const base = modelURL(opts.model, opts.modelPath);
    const files = {};
    for (const name of ["tokenizer.json", "vocab.txt", "tokenizer_config.json", "config.json"]) {
      if (name === "vocab.txt" && files["tokenizer.json"]) continue;
      const bytes = await fetchFile(new URL(name, base), report, name, false);
      if (bytes) files[name] = bytes;
    }
    if (!files["tokenizer.json"] && !files["vocab.txt"]) throw missing(opts.model, ["tokenizer.json", "vocab.txt"], base);
    const tokenizer = own({}, create("WordPieceTokenizer", files, base.href));
    let model;
    const candidates = unwrap(bridge.static("modelFiles", opts.dtype));
    for (const name of candidates) {
      model = await fetchFile(new URL("onnx/" + name, base), report, "onnx/" + name, false);
      if (model) break;
    }
    if (!model) throw missing(opts.model, candidates.map((n) => "onnx/" + n), base);
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
