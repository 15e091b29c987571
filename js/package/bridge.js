// The bridge to folio.wasm, which folio.js and transformers.js share:
// loading this module loads folio.wasm from beside it (top-level await).
import "./wasm_exec.js";

const wasmURL = new URL("./folio.wasm", import.meta.url);

async function start() {
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
  if (!globalThis.__folio) throw new Error("folio: folio.wasm did not start");
  return globalThis.__folio;
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
