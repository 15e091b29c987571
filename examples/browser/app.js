// The page: Folio's JavaScript package (Vectra's browser API) drives a
// document index kept in this page's IndexedDB; buttons call it and
// results are drawn with plain DOM calls.
import { LocalDocumentIndex, OpenAIEmbeddings, BrowserWebFetcher } from './folio.js';

const $ = (id) => document.getElementById(id);

// wordHashing is an offline embeddings model written here, as any page can
// write one: each word is hashed into one of 256 dimensions. It matches
// words, not meaning.
const wordHashing = {
  maxTokens: 8000,
  async createEmbeddings(inputs) {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    return { status: 'success', output: list.map(hashWords) };
  },
};

function hashWords(text) {
  const v = new Array(256).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
    v[h % 256] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

let index; // the open LocalDocumentIndex
const fetcher = new BrowserWebFetcher();

function status(text, error) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

// run disables the buttons while task runs and reports its failure.
async function run(label, task) {
  const buttons = document.querySelectorAll('button');
  buttons.forEach((b) => { b.disabled = true; });
  status(label + '…');
  try {
    await task();
  } catch (err) {
    status(label + ' failed: ' + err.message, true);
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

async function showDocuments() {
  const uris = (await index.listDocuments()).map((d) => d.uri).sort();
  $('documents').textContent = uris.length ? 'Indexed: ' + uris.join(', ') : 'No documents yet.';
}

// search shows the best three documents and their best two passages of
// up to 300 tokens: by default vector and keyword matches ranked together
// (rank fusion) and Folio's passages; with vectra, Vectra's vector search
// and sections.
async function search(query, vectra) {
  const box = $('results');
  box.replaceChildren();
  const options = vectra ? { maxDocuments: 3 } : { maxDocuments: 3, isBm25: true, fusion: 'rrf' };
  const results = await index.queryDocuments(query, options);
  for (const r of results) {
    const div = document.createElement('div');
    div.className = 'result';
    const h = document.createElement('h3');
    h.textContent = r.uri + ' ';
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = 'score ' + r.score.toFixed(4);
    h.append(score);
    div.append(h);
    for (const s of await r.render({ maxTokens: 300, maxSections: 2, vectraSections: vectra })) {
      const sec = document.createElement('div');
      sec.className = 'section';
      const meta = document.createElement('span');
      meta.className = 'score';
      meta.textContent = (s.isBm25 ? 'keyword match' : 'passage') + ', score ' + s.score.toFixed(4) + ', ' + s.tokenCount + ' tokens';
      sec.append(meta, s.text);
      div.append(sec);
    }
    box.append(div);
  }
  status(results.length ? results.length + ' documents found.' : 'Nothing found.');
}

// useModel opens (creating on first use) the index for a model: the
// offline word hashing when no key is given, else the hosted model
// (default text-embedding-3-small). Each model has its own folder, since
// their vectors differ.
async function useModel() {
  const key = $('key').value.trim();
  const model = $('model').value.trim() || 'text-embedding-3-small';
  const embeddings = key ? new OpenAIEmbeddings({ apiKey: key, model }) : wordHashing;
  const name = key ? model : 'hash';
  index = new LocalDocumentIndex({ folderPath: 'folio-demo/' + name, embeddings });
  if (!(await index.isIndexCreated())) await index.createIndex({ version: 1 });
  $('model-name').textContent = 'Index: folio-demo/' + name + (key ? ' (hosted model)' : ' (offline word hashing)');
  await showDocuments();
}

$('use-model').onclick = () => run('Opening the index', async () => { await useModel(); status('Ready.'); });
$('add-text').onclick = () => run('Adding text', async () => {
  const uri = $('title').value.trim();
  if (!uri) throw new Error('give the text a title');
  await index.upsertDocument(uri, $('text').value, 'txt');
  $('title').value = '';
  $('text').value = '';
  await showDocuments();
  status('Added ' + uri + '.');
});
$('add-url').onclick = () => run('Fetching', async () => {
  const url = $('url').value.trim();
  await fetcher.fetch(url, async (uri, text, docType) => {
    await index.upsertDocument(uri, text, docType);
    return true;
  });
  await showDocuments();
  status('Added ' + url + '.');
});
$('search').onclick = () => run('Searching', () => search($('query').value, $('vectra').checked));
$('query').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('search').click(); });
$('clear').onclick = () => run('Clearing', async () => {
  await index.createIndex({ version: 1, deleteIfExists: true });
  $('results').replaceChildren();
  await showDocuments();
  status('The index is empty.');
});

run('Opening the index', async () => {
  await useModel();
  status('Ready.');
});
