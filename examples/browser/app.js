// The page's side: buttons call the functions folio.wasm puts on
// globalThis.folio, and results are drawn with plain DOM calls.
'use strict';

const $ = (id) => document.getElementById(id);

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
  const uris = await folio.documents();
  $('documents').textContent = uris.length ? 'Indexed: ' + uris.join(', ') : 'No documents yet.';
}

function showResults(results) {
  const box = $('results');
  box.replaceChildren();
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
    for (const s of r.sections || []) {
      const sec = document.createElement('div');
      sec.className = 'section';
      const meta = document.createElement('span');
      meta.className = 'score';
      meta.textContent = (s.bm25 ? 'BM25 section' : 'section') + ', score ' + s.score.toFixed(4) + ', ' + s.tokens + ' tokens';
      sec.append(meta, s.text);
      div.append(sec);
    }
    box.append(div);
  }
  status(results.length ? results.length + ' documents found.' : 'Nothing found.');
}

async function useModel() {
  const name = await folio.open($('key').value.trim(), $('model').value.trim());
  $('model-name').textContent = 'Index: folio-demo/' + name + (name === 'hash' ? ' (offline word hashing)' : ' (hosted model)');
  await showDocuments();
}

$('use-model').onclick = () => run('Opening the index', async () => { await useModel(); status('Ready.'); });
$('add-text').onclick = () => run('Adding text', async () => {
  const uri = await folio.addText($('title').value.trim(), $('text').value);
  $('title').value = '';
  $('text').value = '';
  await showDocuments();
  status('Added ' + uri + '.');
});
$('add-url').onclick = () => run('Fetching', async () => {
  const uri = await folio.addURL($('url').value.trim());
  await showDocuments();
  status('Added ' + uri + '.');
});
$('search').onclick = () => run('Searching', async () => {
  showResults(await folio.search($('query').value, $('bm25').checked));
});
$('query').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('search').click(); });
$('clear').onclick = () => run('Clearing', async () => {
  await folio.clear();
  $('results').replaceChildren();
  await showDocuments();
  status('The index is empty.');
});

window.addEventListener('folio-ready', () => run('Opening the index', async () => {
  await useModel();
  status('Ready.');
}));

const go = new Go();
WebAssembly.instantiateStreaming(fetch('folio.wasm'), go.importObject)
  .then((wasm) => go.run(wasm.instance))
  .catch((err) => status('Could not load folio.wasm: ' + err.message, true));
