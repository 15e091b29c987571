// TransformersEmbeddings in the page on the model the test serves at
// ?model=: the vectors and token ids of a few texts, and a document index
// built with the model that answers queries.
export const inputs = [
  "hello world",
  "The quick brown fox jumps over the lazy dog.",
  "",
  "Unaffable CAFÉ, naïve résumé!",
  "a ".repeat(300),
];

export async function run(lib, params) {
  const { TransformersEmbeddings, TransformersTokenizer, LocalDocumentIndex, VirtualFileStorage } = lib;
  const progress = [];
  const model = await TransformersEmbeddings.create({ model: params.model, progressCallback: (p) => progress.push(p.status + " " + (p.file ?? "")) });
  const response = await model.createEmbeddings(inputs);
  const single = await model.createEmbeddings(inputs[0]);
  const tokenizer = model.getTokenizer();
  const out = {
    inputs, progress, model: model.model, maxTokens: model.maxTokens,
    status: response.status, message: response.message ?? "", output: response.output,
    single: single.output,
    ids: inputs.map((t) => tokenizer.encode(t)),
    decoded: tokenizer.decode(tokenizer.encode("Hello, World")),
    isTokenizer: tokenizer instanceof TransformersTokenizer,
  };

  const index = new LocalDocumentIndex({ folderPath: "tiny", storage: new VirtualFileStorage(), embeddings: model, tokenizer });
  await index.createIndex({ version: 1 });
  await index.upsertDocument("fox.txt", "The quick brown fox jumps over the lazy dog.");
  await index.upsertDocument("hello.txt", "hello world, hello again");
  out.hits = (await index.queryDocuments("the quick brown fox", { maxDocuments: 2 })).map((r) => r.uri);

  // Vectra's other options: CLS pooling without normalising, and the q8
  // file (the test serves model_quantized.onnx).
  const cls = await TransformersEmbeddings.create({ model: params.model, pooling: "cls", normalize: false, dtype: "q8" });
  out.cls = (await cls.createEmbeddings(inputs)).output;

  // Not on the page's site, and the hub not to be asked.
  out.missing = await TransformersEmbeddings.create({ model: "no/such-model", allowRemoteModels: false }).then(() => "resolved", (e) => e.message);
  return out;
}
