// The scenario both libraries run, unchanged: Vectra's browser build and
// Folio's module are given to run() as `lib`, each imported by its page.
// It creates a document index in IndexedDB, adds three documents embedded
// by a JavaScript embeddings object, queries with and without BM25,
// renders sections; in phase 2 (after a reload) it opens the same index
// and queries again.

// wordsEmbeddings hashes words into 64 dimensions: deterministic, offline.
export const wordsEmbeddings = {
  maxTokens: 8000,
  async createEmbeddings(inputs) {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    return { status: "success", output: list.map(embed) };
  },
};

function embed(text) {
  const v = new Array(64).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
    v[h % 64] += 1;
  }
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

const documents = [
  ["rivers.md", "# Rivers\n\nThe Danube flows through ten countries on its way to the Black Sea.\n\nRivers carry fresh water and sediment to the sea."],
  ["stars.md", "# Stars\n\nStars burn hydrogen into helium in their cores.\n\nThe Sun is a yellow dwarf star in the Milky Way galaxy."],
  ["tides.md", "# Tides\n\nThe Moon's gravity raises two tidal bulges on Earth.\n\nHigh tide and low tide follow the Moon across the sea."],
];

const queries = [
  ["Which river flows to the Black Sea?", false],
  ["hydrogen helium cores", true],
  ["the sea", false],
  ["Moon gravity tide", true],
];

async function answers(index) {
  const out = [];
  for (const [q, isBm25] of queries) {
    const results = await index.queryDocuments(q, { maxDocuments: 3, maxChunks: 3, isBm25 });
    const docs = [];
    for (const r of results) {
      const sections = await r.renderSections(200, 1);
      docs.push({
        uri: r.uri, score: r.score, sections: sections.map((s) => s.text),
        chunks: r.chunks.map((c) => ({ startPos: c.item.metadata.startPos, endPos: c.item.metadata.endPos, score: c.score, isBm25: !!c.item.metadata.isBm25 })),
      });
    }
    out.push({ query: q, isBm25, docs });
  }
  return out;
}

export async function run(lib, params) {
  const { LocalDocumentIndex, IndexedDBStorage } = lib;
  const storage = new IndexedDBStorage(params.db);
  // Small chunks: Vectra's BM25 needs three chunks beyond the vector hits.
  const index = new LocalDocumentIndex({
    folderPath: "scenario", embeddings: wordsEmbeddings, storage, chunkingConfig: { chunkSize: 24 },
  });
  if (params.phase === "1") {
    // params.layout: Folio's segmented layout when "segmented".
    const config = { version: 1, deleteIfExists: true };
    if (params.layout) config.layout = params.layout;
    await index.createIndex(config);
    for (const [uri, text] of documents) await index.upsertDocument(uri, text, "md");
  }
  const stats = await index.getCatalogStats();
  const listed = (await index.listDocuments()).map((d) => d.uri).sort();
  return { documents: stats.documents, listed, answers: await answers(index) };
}
