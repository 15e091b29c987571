// Regenerates golden.json: what Vectra 0.15's own LocalDocumentIndex does on
// the docs-json and docs-protobuf fixtures with the fixtures' fake embeddings
// (README.md of testdata/vectra-0.15) and its default o200k_base tokenizer:
//   - every document query of inputs.json: the documents, their scores and
//     chunks, and renderSections / renderAllSections of each with a few
//     budgets;
//   - upserting an unchanged fixture document (no embeddings call);
//   - upserting a changed one: its new chunks' positions.
//
//   npm install --ignore-scripts vectra@0.15.0 && node generate.js > golden.json
//
// The fixture folders are copied to a temporary folder first. Sections from
// Vectra's fallback helper are flagged "fallback".
const fs = require('fs');
const os = require('os');
const path = require('path');
const { LocalDocumentIndex, LocalDocumentResult, JsonCodec, ProtobufCodec } = require('vectra');

// Sections built by Vectra's fallback helper are flagged "fallback": Folio
// reports their real token count (a documented fix).
const origFallback = LocalDocumentResult.prototype.buildFallbackTopChunkSection;
LocalDocumentResult.prototype.buildFallbackTopChunkSection = function (...args) {
  return origFallback.apply(this, args).map((s) => ({ ...s, fallback: true }));
};

const fixtures = path.join(__dirname, '..', 'vectra-0.15');
const inputs = JSON.parse(fs.readFileSync(path.join(fixtures, 'inputs.json'), 'utf8'));

// The fake embeddings model of the fixtures, as README.md describes it.
function fakeVector(text) {
  const bytes = Buffer.from(text, 'utf8');
  const v = new Array(32).fill(0);
  let i = 0;
  const isTok = (b) => (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b >= 0x80;
  const lower = (b) => (b >= 0x41 && b <= 0x5a ? b + 32 : b);
  while (i < bytes.length) {
    if (!isTok(lower(bytes[i]))) { i++; continue; }
    let h = 0x811c9dc5;
    while (i < bytes.length && isTok(lower(bytes[i]))) {
      h ^= lower(bytes[i]);
      h = Math.imul(h, 0x01000193) >>> 0;
      i++;
    }
    const dim = h % 32;
    const sign = h & 0x80000000 ? -1 : 1;
    const w = 1 + ((h >>> 8) & 0xff) / 256;
    v[dim] += sign * w;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n === 0) { v[0] = 1; return v; }
  return v.map((x) => x / n);
}

class FakeEmbeddings {
  constructor() { this.maxTokens = 500; this.calls = 0; }
  async createEmbeddings(inputs) {
    this.calls++;
    const arr = Array.isArray(inputs) ? inputs : [inputs];
    return { status: 'success', output: arr.map(fakeVector) };
  }
}

// Check the model against the fixtures' reference vectors.
for (const ref of inputs.fakeEmbeddings.reference) {
  const got = fakeVector(ref.input);
  if (got.some((x, i) => x !== ref.vector[i])) throw new Error(`fake embeddings differ for ${JSON.stringify(ref.input)}`);
}

function copyDir(src) {
  const dst = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-docs-'));
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dst, f));
  return dst;
}

const renders = [
  { kind: 'sections', maxTokens: 100, maxSections: 2, overlapping: true },
  { kind: 'sections', maxTokens: 60, maxSections: 1, overlapping: false },
  { kind: 'sections', maxTokens: 2000, maxSections: 1, overlapping: true },
  { kind: 'sections', maxTokens: 20, maxSections: 2, overlapping: true },
  { kind: 'sections', maxTokens: 4, maxSections: 3, overlapping: true },
  { kind: 'all', maxTokens: 50 },
];

async function folder(name, codec) {
  const dir = copyDir(path.join(fixtures, name));
  const embeddings = new FakeEmbeddings();
  const index = new LocalDocumentIndex({ folderPath: dir, embeddings, codec, chunkingConfig: { chunkSize: 64 } });
  const queries = [];
  for (const q of inputs.documentQueries) {
    const results = await index.queryDocuments(q.query, q.options);
    const docs = [];
    for (const r of results) {
      const out = [];
      for (const spec of renders) {
        const sections = spec.kind === 'all'
          ? await r.renderAllSections(spec.maxTokens)
          : await r.renderSections(spec.maxTokens, spec.maxSections, spec.overlapping);
        out.push({ ...spec, sections });
      }
      docs.push({
        id: r.id,
        uri: r.uri,
        score: r.score,
        chunks: r.chunks.map((c) => ({ id: c.item.id, score: c.score, isBm25: c.item.metadata.isBm25 === true })),
        renders: out,
      });
    }
    queries.push({ query: q.query, options: q.options, documents: docs });
  }

  // An unchanged document is skipped.
  const doc = inputs.documents.list.find((d) => d.uri === 'guide/long.md');
  const before = embeddings.calls;
  const same = await index.upsertDocument(doc.uri, doc.text, doc.docType, doc.metadata);
  const unchanged = { uri: doc.uri, id: same.id, embeddingsCalls: embeddings.calls - before };

  // A changed one is replaced.
  const changedText = doc.text.replace('## 2. Split into chunks', '## 2. Split documents into chunks of tokens') + '\nA new closing paragraph about caching.\n';
  const callsBefore = embeddings.calls;
  const changedDoc = await index.upsertDocument(doc.uri, changedText, doc.docType, { ...doc.metadata, year: 2025 });
  const items = await index.listItemsByMetadata({ documentId: changedDoc.id });
  const changed = {
    uri: doc.uri,
    text: changedText,
    metadata: { ...doc.metadata, year: 2025 },
    embeddingsCalls: embeddings.calls - callsBefore,
    chunks: items.map((it) => ({ startPos: it.metadata.startPos, endPos: it.metadata.endPos, vector: it.vector })),
    stats: await index.getCatalogStats(),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return { folder: name, queries, unchanged, changed };
}

(async () => {
  const out = [];
  out.push(await folder('docs-json', new JsonCodec()));
  out.push(await folder('docs-protobuf', new ProtobufCodec()));
  process.stdout.write(JSON.stringify({ generator: 'vectra@0.15.0 LocalDocumentIndex', folders: out }) + '\n');
})().catch((e) => { console.error(e); process.exit(1); });
