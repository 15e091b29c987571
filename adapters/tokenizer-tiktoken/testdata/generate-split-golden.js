// Regenerates split_golden.json: what Vectra 0.15's TextSplitter returns with
// its default tokenizer (o200k_base through gpt-tokenizer 3.4.0) for seeded
// random markdown, code and prose, in several configurations.
//
//   npm install vectra@0.15.0 && node generate-split-golden.js > split_golden.json
//
// As in core/testdata/textsplitter/generate.js, cases where one of Folio's
// documented fixes changes the result are left out and counted on stderr;
// so are cases whose chunks hold U+FFFD (a token window cut a character).
const { TextSplitter } = require('vectra');

function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = ['vector', 'search', 'finds', 'items', 'whose', 'embedding', 'is', 'close', 'to', 'a', 'query', 'the', 'of',
  'database', 'stores', 'metadata', 'Cosine', 'similarity', 'score', '42', '2024', 'x', 'naïve', 'résumé', '日本語の', 'テキスト',
  'Привет', '👋', '✨', "don't", "it's", 'supercalifragilisticexpialidocious', 'https://example.com/a?b=c', 'foo_bar', 'CamelCase'];
const glue = [' ', ' ', ' ', ' ', ' ', ' ', ' ', ', ', '. ', '.\n', '\n', '\n\n', '\n## ', '\n### ', '\n- ', '\n\n---\n\n',
  '```\n\n', '\nclass ', '\ndef ', '\nfunc ', '\nif ', '<p>', '<li>', '\t', '  ', '\n    ', ' --- ', '; '];

function randomText(rnd, maxWords) {
  const n = Math.floor(rnd() * maxWords);
  let s = '';
  for (let i = 0; i < n; i++) {
    s += words[Math.floor(rnd() * words.length)];
    s += glue[Math.floor(rnd() * glue.length)];
  }
  return s;
}

const docTypes = ['md', 'py', 'go', 'html', 'ts', 'txt'];
const configs = [
  { chunkSize: 64, chunkOverlap: 0, keepSeparators: true },
  { chunkSize: 32, chunkOverlap: 8, keepSeparators: false },
  { chunkSize: 512, chunkOverlap: 0, keepSeparators: true },
  { chunkSize: 12, chunkOverlap: 4, keepSeparators: true },
];

const rnd = mulberry32(7);
const out = [];
const left = { spaceWindows: 0, strippedRun: 0, nonASCIIWord: 0, replacementChar: 0 };
let n = 0;
for (const docType of docTypes) {
  for (const config of configs) {
    for (let k = 0; k < 10; k++) {
      const text = randomText(rnd, config.chunkSize > 100 ? 600 : 150);
      n++;
      const splitter = new TextSplitter({ ...config, docType });
      const quirks = new Set();
      const splitBySpaces = splitter.splitBySpaces.bind(splitter);
      splitter.splitBySpaces = (t) => { const p = splitBySpaces(t); if (p.length > 1) quirks.add('spaceWindows'); return p; };
      const strip = splitter.stripInlineSeparators.bind(splitter);
      splitter.stripInlineSeparators = (t) => { const r = strip(t); if (r !== t) quirks.add('strippedRun'); return r; };
      const combine = splitter.combineChunks.bind(splitter);
      splitter.combineChunks = (chunks, joiner) => {
        for (const c of chunks) {
          if (/\S/.test(c.text) && !/[a-zA-Z0-9]/.test(c.text) && /[\p{L}\p{N}]/u.test(c.text)) quirks.add('nonASCIIWord');
        }
        return combine(chunks, joiner);
      };
      const chunks = splitter.split(text);
      if (chunks.some((c) => c.text.includes('\ufffd'))) quirks.add('replacementChar');
      if (quirks.size > 0) { for (const q of quirks) left[q]++; continue; }
      out.push({
        name: `random ${n}`, docType, ...config, text,
        chunks: chunks.map((c) => ({ text: c.text, tokens: c.tokens, startPos: c.startPos, endPos: c.endPos,
          startOverlap: c.startOverlap, endOverlap: c.endOverlap })),
      });
    }
  }
}
process.stderr.write(`kept ${out.length} of ${n} cases; left out ${JSON.stringify(left)}\n`);
process.stdout.write('[\n' + out.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n');
