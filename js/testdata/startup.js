// Start-up: the time from navigation (performance.now() counts from it)
// to the first answered query, with the library's import included: a
// LocalIndex in memory, 100 items of 384 dimensions inserted, one top-10
// query answered.
export async function run(lib) {
  const { LocalIndex, VirtualFileStorage } = lib;
  const index = new LocalIndex("startup", undefined, new VirtualFileStorage());
  await index.createIndex({ version: 1, deleteIfExists: true });
  let s = 7;
  const next = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  await index.beginUpdate();
  for (let i = 0; i < 100; i++) await index.insertItem({ id: "i" + i, vector: Array.from({ length: 384 }, next), metadata: {} });
  await index.endUpdate();
  const hits = await index.queryItems(Array.from({ length: 384 }, next), "", 10);
  return { ms: performance.now(), hits: hits.length };
}
