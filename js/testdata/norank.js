// A page whose server lacks o200k_base.tiktoken.gz, the tokenizer's ranks:
// indexes of vectors work, and the tokenizer's first use says what is
// missing instead of answering wrong.
export async function run(lib) {
  const { LocalIndex, LocalDocumentIndex, VirtualFileStorage, GPT3Tokenizer } = lib;
  const storage = new VirtualFileStorage();
  const index = new LocalIndex("norank", undefined, storage);
  await index.createIndex({ version: 1 });
  await index.insertItem({ id: "a", vector: [1, 0, 0], metadata: { n: 1 } });
  await index.insertItem({ id: "b", vector: [0, 1, 0], metadata: { n: 2 } });
  const hits = (await index.queryItems([0.9, 0.1, 0], "", 2)).map((r) => r.item.id);
  const error = (f) => { try { f(); return "no error"; } catch (e) { return String(e.message ?? e); } };
  const encode = error(() => new GPT3Tokenizer().encode("hello world"));
  const embeddings = { maxTokens: 100, createEmbeddings: async (inputs) => ({ status: "success", output: [].concat(inputs).map(() => [1, 0]) }) };
  const docs = new LocalDocumentIndex({ folderPath: "norank-docs", storage, embeddings });
  await docs.createIndex({ version: 1 });
  const upsert = await docs.upsertDocument("a.txt", "some text").then(() => "no error", (e) => String(e.message ?? e));
  return { hits, encode, upsert };
}
