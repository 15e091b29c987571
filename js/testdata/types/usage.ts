// A page's code written against Vectra's browser API. The type check
// compiles it twice, once importing Vectra's declarations and once
// Folio's (folio.d.ts): only the import line differs.
import {
  LocalIndex, LocalDocumentIndex, LocalDocumentResult, IndexedDBStorage, VirtualFileStorage,
  BrowserWebFetcher, OpenAIEmbeddings, TransformersEmbeddings, GPT3Tokenizer, TextSplitter,
  ItemSelector, FileStorageUtilities, pathUtils,
  EmbeddingsModel, EmbeddingsResponse, FileStorage, QueryResult, DocumentTextSection, TextChunk,
} from "LIBRARY";

const embeddings: EmbeddingsModel = {
  maxTokens: 8000,
  async createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse> {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    return { status: "success", output: list.map(() => [0, 1]) };
  },
};

export async function page(): Promise<string[]> {
  const storage: FileStorage = new IndexedDBStorage("my-db");
  const index = new LocalDocumentIndex({ folderPath: "docs", embeddings, storage, chunkingConfig: { chunkSize: 256 } });
  if (!(await index.isIndexCreated())) await index.createIndex({ version: 1, deleteIfExists: true });
  const doc = await index.upsertDocument("a.txt", "text", "txt", { lang: "en" });
  const text: string = await doc.loadText();
  const results: LocalDocumentResult[] = await index.queryDocuments("question", { maxDocuments: 2, isBm25: true });
  const sections: DocumentTextSection[] = await results[0].renderSections(500, 1, true);
  const all: DocumentTextSection[] = await results[0].renderAllSections(500);
  const stats = await index.getCatalogStats();

  const items = new LocalIndex("items", "index.json", new VirtualFileStorage());
  await items.createIndex();
  await items.insertItem({ id: "x", vector: [1, 0], metadata: { n: 1 } });
  const hits: QueryResult[] = await items.queryItems([1, 0], "", 3, { n: { $gte: 1 } }, false);
  await items.beginUpdate();
  items.cancelUpdate();

  const fetcher = new BrowserWebFetcher({ htmlToMarkdown: true });
  await fetcher.fetch("/page.html", async (uri: string, body: string, docType?: string) => {
    await index.upsertDocument(uri, body, docType);
    return true;
  });
  const openai = new OpenAIEmbeddings({ apiKey: "sk-test", model: "text-embedding-3-small" });
  const local = await TransformersEmbeddings.create({ model: "Xenova/all-MiniLM-L6-v2", pooling: "mean" });
  const tokens: number[] = local.getTokenizer().encode("hello");
  const chunks: TextChunk[] = new TextSplitter({ chunkSize: 100, tokenizer: new GPT3Tokenizer() }).split("some text");
  const cos: number = ItemSelector.cosineSimilarity([1, 0], [0, 1]);
  const ok: boolean = ItemSelector.select({ a: 1 }, { a: { $eq: 1 } });
  await FileStorageUtilities.ensureFolderExists(storage, "docs");
  const joined: string = pathUtils.join("a", "b");
  return [text, String(sections.length + all.length + stats.documents + hits.length), String(openai.maxTokens),
    String(tokens.length + chunks.length + cos), String(ok), joined];
}
