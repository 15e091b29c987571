// Folio's own document query and rendering in the page: rank fusion
// (fusion: "rrf") and passages (render), beside Vectra's renderSections.

const words = (t) => t.toLowerCase().match(/[a-z]+/g) ?? [];
const wordsEmbeddings = {
  maxTokens: 1000,
  async createEmbeddings(inputs) {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    return {
      status: "success",
      output: list.map((t) => {
        const v = new Array(16).fill(0);
        for (const w of words(t)) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)] += 1;
        return v;
      }),
    };
  },
};

const guide = [
  "# Guide", "", "An introduction that goes on about nothing in particular for a while.", "",
  ...Array.from({ length: 30 }, (_, i) => `Filler line ${i} about unrelated matters.`), "",
  "## Running tests", "", "Run every test with the race detector:", "", "    go test -race ./...", "",
  ...Array.from({ length: 30 }, (_, i) => `Closing line ${i} on other things.`),
].join("\n");

export async function run(lib) {
  const { LocalDocumentIndex, VirtualFileStorage } = lib;
  const index = new LocalDocumentIndex({
    folderPath: "passages", embeddings: wordsEmbeddings, storage: new VirtualFileStorage(), chunkingConfig: { chunkSize: 40 },
  });
  await index.createIndex({ version: 1, deleteIfExists: true });
  await index.upsertDocument("guide.md", guide, "md");
  await index.upsertDocument("other.md", "# Other\n\nNothing about tests here, only prose on weather.", "md");
  const q = "how do I run every test with the race detector";
  const fused = await index.queryDocuments(q, { isBm25: true, fusion: "rrf", maxDocuments: 2 });
  const vector = await index.queryDocuments(q, { maxDocuments: 2, isBm25: false });
  const byDefault = await index.queryDocuments(q, { maxDocuments: 2 });
  const passages = await fused[0].render({ maxTokens: 40 });
  const vectraSections = await fused[0].render({ maxTokens: 40, vectraSections: true });
  const renderSections = await fused[0].renderSections(40, 1);
  let badFusion = "resolved";
  try { await index.queryDocuments(q, { isBm25: true, fusion: "borda" }); } catch (e) { badFusion = String(e.message ?? e); }
  return {
    fusedURIs: fused.map((r) => r.uri), fusedScores: fused.map((r) => r.score), vectorScore: vector[0].score,
    defaultURIs: byDefault.map((r) => r.uri), defaultScores: byDefault.map((r) => r.score),
    passage: passages[0].text, passageScore: passages[0].score, passageTokens: passages[0].tokenCount,
    sameAsVectra: JSON.stringify(vectraSections) === JSON.stringify(renderSections),
    badFusion,
  };
}
