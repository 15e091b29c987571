// TransformersEmbeddings on a model named by hub id (?model=), fetched
// from the hub at ?hub=: progress, vectors, and what Cache Storage holds.
// With ?broken=, a second id whose download is corrupted must fail.
export async function run(lib, params) {
  const { TransformersEmbeddings } = lib;
  const progress = [];
  const model = await TransformersEmbeddings.create({
    model: params.model, remoteHost: params.hub,
    progressCallback: (p) => progress.push({ status: p.status, name: p.name ?? "", file: p.file ?? "", loaded: p.loaded ?? 0, total: p.total ?? 0, progress: p.progress ?? 0 }),
  });
  const response = await model.createEmbeddings(["hello world", "The quick brown fox jumps over the lazy dog."]);
  const cache = await caches.open("transformers-cache");
  const out = { progress, status: response.status, message: response.message ?? "", output: response.output, cached: (await cache.keys()).map((r) => r.url) };
  if (params.broken) {
    out.broken = await TransformersEmbeddings.create({ model: params.broken, remoteHost: params.hub }).then(() => "resolved", (e) => e.message);
    out.cachedAfter = (await cache.keys()).map((r) => r.url);
  }
  return out;
}
