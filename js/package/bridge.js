// The bridge to folio.wasm, which folio.js and transformers.js share:
// loading this module loads folio.wasm from beside it (top-level await),
// and o200k_base.tiktoken.gz, the tokenizer's ranks, which folio.wasm
// does not carry, while the wasm compiles.
import "./wasm_exec.js";

const wasmURL = new URL("./folio.wasm", import.meta.url);
const ranksURL = new URL("./o200k_base.tiktoken.gz", import.meta.url);

async function start() {
  const ranks = fetch(ranksURL).then((r) => {
    if (!r.ok) throw new Error(`${ranksURL}: HTTP ${r.status}`);
    return r.arrayBuffer();
  });
  ranks.catch(() => {}); // awaited below; not an unhandled rejection meanwhile
  const go = new globalThis.Go();
  const response = fetch(wasmURL);
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(response, go.importObject));
  } catch (e) {
    // A server that does not send application/wasm: compile from bytes.
    const bytes = await (await fetch(wasmURL)).arrayBuffer();
    ({ instance } = await WebAssembly.instantiate(bytes, go.importObject));
  }
  go.run(instance);
  const api = globalThis.__folio;
  if (!api) throw new Error("folio: folio.wasm did not start");
  // A page that never tokenizes works without the file: the tokenizer's
  // first use reports why it is missing.
  try {
    api.setRanks(new Uint8Array(await ranks));
  } catch (e) {
    api.setRanks(null, String(e?.message ?? e));
  }
  return api;
}

export const bridge = await start();

const registry = new FinalizationRegistry((h) => bridge.release(h));

export function unwrap(res) {
  if (res && "error" in res) throw res.error;
  return res.value;
}

export function create(name, ...args) {
  return unwrap(bridge.create(name, ...args));
}

// own ties a new Go object's handle to a JavaScript object.
export function own(obj, h) {
  Object.defineProperty(obj, "_h", { value: h, enumerable: false });
  registry.register(obj, h);
  return obj;
}

export function call(obj, method, ...args) {
  return bridge.call(obj._h, method, ...args);
}

export function callSync(obj, method, ...args) {
  return unwrap(bridge.callSync(obj._h, method, ...args));
}
