// Query speed in the page: a 10,000 × 384 LocalIndex in memory (seeded
// Gaussian vectors), then window.__bench.query(n) times n top-10 queries
// with performance.now() and answers the mean milliseconds per query.
// ?quantized=1 turns on Folio's int8 scan.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussians(next, n) {
  const v = new Array(n);
  for (let i = 0; i < n; i++) v[i] = Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  return v;
}

export async function run(lib, params) {
  const { LocalIndex, VirtualFileStorage } = lib;
  const n = Number(params.items ?? 10000), dims = Number(params.dims ?? 384);
  const next = rng(7);
  const items = [];
  for (let i = 0; i < n; i++) items.push({ id: "item-" + i, vector: gaussians(next, dims), metadata: {} });
  const queries = [];
  for (let i = 0; i < 64; i++) queries.push(gaussians(next, dims));
  // Folio's engine option (Vectra's LocalIndex takes no such option).
  const options = params.quantized ? { quantizedScan: true } : undefined;
  const index = new LocalIndex("bench", undefined, new VirtualFileStorage(), undefined, options);
  await index.createIndex({ version: 1 });
  let t0 = performance.now();
  await index.batchInsertItems(items);
  const insertMs = performance.now() - t0;
  const first = await index.queryItems(queries[0], "", 10);
  let q = 0;
  window.__bench = {
    async query(count) {
      const start = performance.now();
      for (let i = 0; i < count; i++) await index.queryItems(queries[q++ % queries.length], "", 10);
      return (performance.now() - start) / count;
    },
  };
  return { insertMs, top: first.map((r) => r.item.id) };
}
