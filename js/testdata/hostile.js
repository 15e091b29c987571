// Hostile and careless calls from a page: wrong types, Proxies whose traps
// throw, getters that throw, an embeddings model answering nonsense. Each
// must settle (resolve or reject), and the same runtime must answer a
// query after each one.

const throwingProxy = () => new Proxy({}, {
  get() { throw new Error("trap: get"); },
  has() { throw new Error("trap: has"); },
  ownKeys() { throw new Error("trap: ownKeys"); },
  getOwnPropertyDescriptor() { throw new Error("trap: descriptor"); },
  getPrototypeOf() { throw new Error("trap: prototype"); },
});
const throwingGetter = () => Object.defineProperty({}, "vector", { get() { throw new Error("getter: vector"); }, enumerable: true });
const values = () => ({
  undefined: undefined, null: null, number: 42, string: "text", boolean: true,
  bigint: 10n, symbol: Symbol("s"), function: () => 1, emptyArray: [], emptyObject: {},
  proxy: throwingProxy(), getter: throwingGetter(), nestedProxy: { id: "n", vector: throwingProxy() },
  vectorOfStrings: { vector: ["a", "b", "c"] }, nanVector: { vector: [NaN, 1, 0] },
});

async function settle(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return "rejected";
  }
}

export async function run(lib) {
  const { LocalIndex, LocalDocumentIndex } = lib;
  const index = new LocalIndex("hostile-items");
  await index.createIndex({ version: 1, deleteIfExists: true });
  await index.insertItem({ id: "a", vector: [1, 0, 0] });
  const alive = async () => (await index.queryItems([1, 0, 0], "", 1))[0]?.item.id === "a";

  const calls = [];
  const v = values();
  const methods = {
    insertItem: (x) => index.insertItem(x),
    upsertItem: (x) => index.upsertItem(x),
    batchInsertItems: (x) => index.batchInsertItems(x),
    batchInsertItemsOf: (x) => index.batchInsertItems([x]),
    queryItems: (x) => index.queryItems(x, "", 1),
    queryFilter: (x) => index.queryItems([1, 0, 0], "", 1, x),
    getItem: (x) => index.getItem(x),
    deleteItem: (x) => index.deleteItem(x),
    listItemsByMetadata: (x) => index.listItemsByMetadata(x),
  };
  for (const [m, call] of Object.entries(methods)) {
    for (const [name, value] of Object.entries(v)) calls.push([`${m}(${name})`, () => call(value)]);
  }
  const docs = (embeddings) => new LocalDocumentIndex({ folderPath: "hostile-docs", embeddings });
  const answering = (output) => ({ maxTokens: 100, async createEmbeddings() { return { status: "success", output }; } });
  for (const [name, output] of Object.entries({
    string: "not vectors", number: 3, object: { 0: [1] }, proxy: throwingProxy(), strings: [["x", "y"]],
    nested: [throwingProxy()], emptyVector: [[]], nan: [[NaN, 1]],
  })) {
    calls.push([`embeddings output ${name}`, async () => {
      const d = docs(answering(output));
      await d.createIndex({ version: 1, deleteIfExists: true });
      return d.upsertDocument("a.txt", "some text");
    }]);
  }
  calls.push(["embeddings answer a proxy", async () => {
    const d = docs({ maxTokens: 100, createEmbeddings: async () => throwingProxy() });
    await d.createIndex({ version: 1, deleteIfExists: true });
    return d.upsertDocument("a.txt", "some text");
  }]);
  calls.push(["embeddings reject with a proxy", async () => {
    const d = docs({ maxTokens: 100, createEmbeddings: () => Promise.reject(throwingProxy()) });
    await d.createIndex({ version: 1, deleteIfExists: true });
    return d.upsertDocument("a.txt", "some text");
  }]);
  calls.push(["a proxy as the config", () => new LocalDocumentIndex(throwingProxy()).listDocuments()]);
  calls.push(["a proxy as the storage", () => new LocalIndex("p", undefined, throwingProxy()).listItems()]);

  const out = { calls: calls.length, outcomes: {}, dead: [] };
  for (const [name, call] of calls) {
    let outcome;
    try {
      outcome = await settle(Promise.resolve().then(call));
    } catch (e) {
      outcome = "threw";
    }
    out.outcomes[name] = outcome;
    let ok = false;
    try { ok = await alive(); } catch (e) { ok = false; }
    if (!ok) out.dead.push(name);
  }
  out.aliveAtEnd = await alive();
  return out;
}
