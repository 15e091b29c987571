// The rest of the browser API, run the same way on both libraries: the
// tokenizer, the splitter, ItemSelector, FileStorageUtilities, pathUtils,
// VirtualFileStorage, BrowserWebFetcher on a page this site serves and
// OpenAIEmbeddings against the test's OpenAI-compatible endpoint.
const text = "Hello world! Folio and Vectra split text the same way.\n\nA second paragraph, with more words in it than the first one has.\n\nA third.";

export async function run(lib, params) {
  const { IndexedDBStorage, GPT3Tokenizer, TextSplitter, ItemSelector, FileStorageUtilities, pathUtils, VirtualFileStorage, BrowserWebFetcher, OpenAIEmbeddings } = lib;
  const out = {};
  const tok = new GPT3Tokenizer();
  out.tokens = tok.encode(text);
  out.decoded = tok.decode(out.tokens.slice(0, 5));
  out.specialToken = (() => { try { tok.encode("a <|endoftext|> b"); return "no error"; } catch (e) { return "threw"; } })();
  out.chunks = new TextSplitter({ chunkSize: 20, chunkOverlap: 4 }).split(text).map((c) => [c.text, c.startPos, c.endPos, c.tokens.length, c.startOverlap.length, c.endOverlap.length]);
  out.badSplitter = (() => { try { new TextSplitter({ chunkSize: 10, chunkOverlap: 20 }); return "no error"; } catch (e) { return "threw"; } })();

  const md = { kind: "doc", year: 2021, tags: "a", draft: false };
  out.select = [
    { kind: "doc" }, { year: { $gt: 2020 } }, { year: { $lte: 2020 } }, { kind: { $in: ["doc", "x"] } },
    { $or: [{ kind: "x" }, { draft: false }] }, { $and: [{ kind: "doc" }, { year: { $ne: 2021 } }] }, { missing: { $nin: ["a"] } },
  ].map((f) => ItemSelector.select(md, f));
  out.cosine = ItemSelector.cosineSimilarity([1, 2, 3], [3, 2, 1]);
  out.norm = ItemSelector.normalize([3, 4]);
  out.normalizedCosine = ItemSelector.normalizedCosineSimilarity([1, 0], 1, [1, 1], Math.SQRT2);
  // Vectors of different lengths compare their overlapping prefix; a zero
  // norm is NaN (as a string: JSON would make it null).
  // Defaults a page can read back: the storage and codec made, the index
  // file named after the codec.
  const { LocalIndex: LI, LocalDocumentIndex: LDI } = lib;
  const defaulted = new LDI({ folderPath: "surface-defaults-" + params.lib });
  out.defaultStorageWorks = await defaulted.storage.pathExists("surface-defaults-" + params.lib);
  out.defaultCodec = [defaulted.codec?.extension, defaulted.indexName];
  out.pbIndexName = new LI("surface-pb", undefined, undefined, { extension: ".pb" }).indexName;
  out.cosinePrefix = ItemSelector.cosineSimilarity([1, 2, 3], [1, 2]);
  out.cosineZero = String(ItemSelector.cosineSimilarity([0, 0], [1, 1]));
  out.normalizedCosineZero = String(ItemSelector.normalizedCosineSimilarity([1, 0], 0, [1, 1], 1));
  out.fileTypes = ["a/b.md", "x.PNG", "noext", "c.tar.gz", "d.pb"].map((p) => FileStorageUtilities.getFileType(p) ?? null);
  out.contentTypes = ["text/html; charset=utf-8", "application/json", "image/png", "nope/nope"].map((c) => FileStorageUtilities.getFileTypeFromContentType(c) ?? null);
  out.paths = [
    pathUtils.join("a/", "/b/", "c"), pathUtils.basename("a/b/file.txt", ".txt"), pathUtils.basename("a\\b\\c.md"),
    pathUtils.dirname("a/b/c"), pathUtils.dirname("file"), pathUtils.extname("x.spec.ts"), pathUtils.extname(".gitignore"),
    pathUtils.normalize("a/./b/../c/"), pathUtils.isAbsolute("/x"), pathUtils.relative("a/b", "a/c/d"), pathUtils.sep,
  ];

  const vfs = new VirtualFileStorage();
  await vfs.createFolder("root");
  await vfs.createFile("root/a.txt", "alpha");
  await vfs.upsertFile("root/b.txt", new TextEncoder().encode("beta"));
  out.vfsCreateTwice = await vfs.createFile("root/a.txt", "again").then(() => "resolved", () => "rejected");
  out.vfsRead = new TextDecoder().decode(await vfs.readFile("root/b.txt"));
  out.vfsList = (await vfs.listFiles("root")).map((d) => [d.name, d.path, d.isFolder, d.fileType ?? null]).sort();
  out.vfsDetails = await vfs.getDetails("root/a.txt");
  out.vfsExists = [await vfs.pathExists("root/a.txt"), await vfs.pathExists("root/zzz")];
  await FileStorageUtilities.ensureFolderExists(vfs, "other");
  out.vfsEnsured = await vfs.pathExists("other");
  out.vfsTryDelete = (await FileStorageUtilities.tryDeleteFile(vfs, "root/a.txt")) === undefined;
  out.vfsAfterDelete = await vfs.pathExists("root/a.txt");

  const idb = new IndexedDBStorage("surface-" + params.lib);
  await idb.createFolder("top/docs");
  await idb.createFile("top/docs/a.md", "# A");
  await idb.upsertFile("top/docs/a.md", "# A again");
  await idb.upsertFile("top/b.json", new TextEncoder().encode("{}"));
  out.idbCreateTwice = await idb.createFile("top/b.json", "x").then(() => "resolved", () => "rejected");
  out.idbRead = new TextDecoder().decode(await idb.readFile("top/docs/a.md"));
  out.idbList = (await idb.listFiles("top")).map((d) => [d.name, d.path, d.isFolder, d.fileType ?? null]).sort();
  out.idbFilesOnly = (await idb.listFiles("top", "files")).map((d) => d.name);
  out.idbDetails = [await idb.getDetails("top/docs"), await idb.getDetails("top/b.json")];
  out.idbMissing = await idb.getDetails("top/nope").then(() => "resolved", () => "rejected");
  await idb.deleteFolder("top/docs");
  out.idbAfterDelete = [await idb.pathExists("top/docs/a.md"), await idb.pathExists("top/b.json")];
  idb.close();
  await idb.destroy();
  out.idbAfterDestroy = await new IndexedDBStorage("surface-" + params.lib).pathExists("top/b.json");

  const fetched = [];
  const fetcher = new BrowserWebFetcher();
  out.fetchResult = await fetcher.fetch(location.origin + "/article.html", async (uri, body, docType) => { fetched.push([uri.replace(location.origin, ""), body.replaceAll(location.origin, ""), docType ?? null]); return true; });
  out.fetched = fetched;
  out.fetchMissing = await fetcher.fetch("/missing.html", async () => true).then(() => "resolved", () => "rejected");

  const openai = new OpenAIEmbeddings({ ossModel: "test-model", ossEndpoint: location.origin, retryPolicy: [] });
  out.maxTokens = openai.maxTokens;
  const resp = await openai.createEmbeddings(["one", "two words"]);
  out.embeddings = { status: resp.status, output: resp.output };
  // Options filled with Vectra's defaults; maxTokens 500 without one.
  out.openaiOptions = [
    new OpenAIEmbeddings({ ossModel: "m", ossEndpoint: location.origin }).options,
    new OpenAIEmbeddings({ azureApiKey: "k", azureEndpoint: " https://x.example/ ", azureDeployment: "d" }).options,
  ];
  out.openaiMaxTokens = new OpenAIEmbeddings({ apiKey: "k", model: "text-embedding-3-small" }).maxTokens;
  out.openaiNoModel = (() => { try { new OpenAIEmbeddings({ apiKey: "k" }); return "constructed"; } catch (e) { return "threw"; } })();
  // logRequests prints the request and the response.
  const logged = [];
  const consoleLog = console.log;
  console.log = (...args) => logged.push(args.map(String).join(" "));
  try {
    await new OpenAIEmbeddings({ ossModel: "test-model", ossEndpoint: location.origin, retryPolicy: [], logRequests: true }).createEmbeddings(["logged"]);
  } finally {
    console.log = consoleLog;
  }
  out.openaiLogged = [logged.some((l) => l.includes("EMBEDDINGS REQUEST:")), logged.some((l) => l.includes("RESPONSE:"))];
  const failing = new OpenAIEmbeddings({ ossModel: "fail", ossEndpoint: location.origin, retryPolicy: [] });
  const failed = await failing.createEmbeddings("x");
  out.failedStatus = failed.status;
  out.failedHasMessage = typeof failed.message === "string" && failed.message.length > 0;
  return out;
}
