// An index published to a static host (folio publish), opened read-only
// over HTTP from the page: rank fusion and passages, as the Go test asks
// the same folder on disk; a write rejects.

export async function run(lib, params) {
  const { LocalDocumentIndex, HttpFileStorage, HashEmbeddings } = lib;
  const index = new LocalDocumentIndex({
    folderPath: "search", storage: new HttpFileStorage("site/"), embeddings: new HashEmbeddings({ dimensions: Number(params.dims) }),
  });
  const answers = [];
  for (const q of JSON.parse(params.queries)) {
    const results = await index.queryDocuments(q, { isBm25: true, fusion: "rrf", maxDocuments: 2 });
    const passages = results.length ? await results[0].render({ maxTokens: 60 }) : [];
    answers.push({ uris: results.map((r) => r.uri), scores: results.map((r) => r.score), passage: passages[0]?.text ?? "" });
  }
  let write = "resolved";
  try { await index.upsertDocument("new.md", "# New\n\nText.", "md"); } catch (e) { write = String(e.message ?? e); }
  return { answers, write };
}
