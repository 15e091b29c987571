// JavaScript objects as Folio's ports: a FileStorage written here, an
// embeddings model that fails in each way one can, and a tokenizer whose
// decode throws. Each failure must come back as a rejected Promise with
// the JavaScript message, and the library must keep answering afterwards.

// MapStorage is a FileStorage over a Map, written as a page would.
export class MapStorage {
  constructor() { this.entries = new Map(); this.calls = 0; this.failWrites = ""; }
  key(p) { return p.replace(/\\/g, "/").replace(/\/+$/, ""); }
  parent(k) { const i = k.lastIndexOf("/"); return i < 0 ? "" : k.slice(0, i); }
  async createFile(p, content) {
    this.calls++;
    const k = this.key(p);
    if (this.entries.has(k)) throw new Error(`File already exists: ${k}`);
    await this.upsertFile(p, content);
  }
  async upsertFile(p, content) {
    this.calls++;
    if (this.failWrites) throw new Error(this.failWrites);
    const k = this.key(p);
    await this.createFolder(this.parent(k));
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : new Uint8Array(content);
    this.entries.set(k, { isFolder: false, content: bytes.slice() });
  }
  async readFile(p) {
    this.calls++;
    const e = this.entries.get(this.key(p));
    if (!e || e.isFolder) throw new Error(`File not found: ${this.key(p)}`);
    return e.content.slice();
  }
  async deleteFile(p) { this.calls++; this.entries.delete(this.key(p)); }
  async pathExists(p) { this.calls++; return this.key(p) === "" || this.entries.has(this.key(p)); }
  async createFolder(p) {
    this.calls++;
    for (let k = this.key(p); k !== ""; k = this.parent(k)) {
      if (!this.entries.has(k)) this.entries.set(k, { isFolder: true });
    }
  }
  async deleteFolder(p) {
    this.calls++;
    const k = this.key(p);
    for (const key of [...this.entries.keys()]) if (key === k || key.startsWith(k + "/")) this.entries.delete(key);
  }
  async getDetails(p) {
    this.calls++;
    const k = this.key(p);
    const e = this.entries.get(k);
    if (!e) throw new Error(`Path not found: ${k}`);
    const name = k.slice(k.lastIndexOf("/") + 1);
    return { name, path: k, isFolder: e.isFolder };
  }
  async listFiles(p, filter = "all") {
    this.calls++;
    const k = this.key(p);
    const out = [];
    for (const [key, e] of this.entries) {
      if (this.parent(key) !== k || key === "") continue;
      if ((filter === "files" && e.isFolder) || (filter === "folders" && !e.isFolder)) continue;
      out.push({ name: key.slice(key.lastIndexOf("/") + 1), path: key, isFolder: e.isFolder });
    }
    return out;
  }
}

const words = (t) => t.toLowerCase().match(/[a-z]+/g) ?? [];
function embed(text) {
  const v = new Array(16).fill(0);
  for (const w of words(text)) v[(w.charCodeAt(0) + w.length) % 16] += 1;
  return v;
}
const good = {
  maxTokens: 1000,
  async createEmbeddings(inputs) {
    return { status: "success", output: (Array.isArray(inputs) ? inputs : [inputs]).map(embed) };
  },
};

// rejects reports how a Promise failed, or that it did not.
async function rejects(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e instanceof Error ? e.message : `non-Error ${String(e)}`;
  }
}

export async function run(lib) {
  const { LocalIndex, LocalDocumentIndex } = lib;
  const out = {};

  // A LocalIndex on a JavaScript storage.
  const storage = new MapStorage();
  const index = new LocalIndex("items", undefined, storage);
  await index.createIndex({ version: 1 });
  await index.insertItem({ id: "a", vector: [1, 0, 0], metadata: { kind: "x" } });
  await index.insertItem({ id: "b", vector: [0, 1, 0.5], metadata: { kind: "y", vector: 7 } });
  const hits = await index.queryItems([0.9, 0.1, 0], "", 2);
  out.hits = hits.map((h) => h.item.id);
  // topK as Vectra reads it: a fraction rounds up, undefined is none.
  out.topKs = [(await index.queryItems([1, 0, 0], "", 1.5)).length, (await index.queryItems([1, 0, 0], "")).length];
  // Vectors come back as arrays of numbers; a metadata key named "vector"
  // is metadata.
  out.vectors = [hits[0].item.vector, (await index.getItem("b")).vector, (await index.listItems()).map((i) => i.vector.length)];
  out.metadataVector = (await index.getItem("b")).metadata.vector;
  out.storedFiles = [...storage.entries.keys()].sort();
  out.storedItems = JSON.parse(new TextDecoder().decode(storage.entries.get("items/index.json").content)).items.map((i) => i.id);
  out.storageCalls = storage.calls;

  // A storage that starts failing: the write rejects with its message,
  // and what was stored stays.
  storage.failWrites = "disk full (quota)";
  out.failedWrite = await rejects(index.insertItem({ id: "c", vector: [0, 0, 1] }));
  storage.failWrites = "";
  out.afterFailedWrite = (await index.listItems()).map((i) => i.id).sort();
  out.reopened = (await new LocalIndex("items", undefined, storage).listItems()).map((i) => i.id).sort();

  // Embeddings failing: a rejection, a synchronous throw, an error status,
  // a rejection with a non-Error value.
  const docs = new LocalDocumentIndex({ folderPath: "docs", storage, embeddings: good });
  await docs.createIndex({ version: 1 });
  await docs.upsertDocument("one.txt", "apples and pears");
  const failing = (createEmbeddings) => new LocalDocumentIndex({ folderPath: "docs", storage, embeddings: { maxTokens: 1000, createEmbeddings } });
  out.rejected = await rejects(failing(() => Promise.reject(new Error("quota exceeded for key sk-test"))).upsertDocument("two.txt", "plums"));
  out.thrown = await rejects(failing(() => { throw new TypeError("inputs is not iterable"); }).upsertDocument("two.txt", "plums"));
  out.errorStatus = await rejects(failing(async () => ({ status: "rate_limited", message: "slow down" })).upsertDocument("two.txt", "plums"));
  out.rejectedString = await rejects(failing(() => Promise.reject("plain string")).upsertDocument("two.txt", "plums"));
  out.queryRejected = await rejects(failing(() => Promise.reject(new Error("offline"))).queryDocuments("apples"));
  out.documentsAfter = (await docs.listDocuments()).map((d) => d.uri);

  // A tokenizer whose decode throws while all sections render (a Go panic
  // in the engine, recovered): the render
  // rejects with its message and the index keeps answering.
  const badTokenizer = new lib.GPT3Tokenizer();
  const throwing = { encode: (t) => badTokenizer.encode(t), decode: () => { throw new Error("decode exploded"); } };
  const withBad = new LocalDocumentIndex({ folderPath: "docs", storage, embeddings: good, tokenizer: throwing });
  const [result] = await withBad.queryDocuments("apples");
  out.renderRejected = await rejects(result.renderAllSections(100));
  out.stillAnswers = (await docs.queryDocuments("apples")).map((d) => d.uri);

  // Calls made together each run in their own goroutine: 20 inserts and 20
  // queries at once all settle, and every insert lands.
  const together = [];
  for (let i = 0; i < 20; i++) {
    together.push(index.insertItem({ id: "t" + i, vector: [i, 1, 0] }));
    together.push(index.queryItems([1, 0, 0], "", 3));
  }
  out.together = (await Promise.allSettled(together)).filter((r) => r.status === "fulfilled").length;
  out.afterTogether = (await index.getIndexStats()).items;

  // Bad input from the page is a rejection too.
  out.badVector = await rejects(index.queryItems("not a vector", "", 1));
  out.badFilter = await rejects(index.queryItems([1, 0, 0], "", 1, { kind: { $regex: "x" } }));
  return out;
}
