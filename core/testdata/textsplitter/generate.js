// Regenerates golden.json: what Vectra 0.15's own TextSplitter returns for
// seeded random texts, with the 1-code-point-per-token tokenizer of Vectra's
// TextSplitter.spec.ts, for every docType and several configurations.
//
//   npm install vectra@0.15.0 && node generate.js > golden.json
//
// Cases where one of Folio's documented fixes changes the result (REF §6,
// architecture §5) are left out, and counted on stderr; the Go tests pin those
// behaviours by name instead:
//   - a " " separator cutting more than one token window (Vectra's positions drift);
//   - an inline separator run stripped from a chunk (Vectra's endPos shrinks);
//   - a chunk whose words have letters but no ASCII letter or digit (Vectra never merges it);
//   - a character window cutting a surrogate pair.
const { TextSplitter } = require('vectra');

const charTokenizer = {
  encode: (text) => Array.from(text).map((c) => c.codePointAt(0)),
  decode: (tokens) => String.fromCodePoint(...tokens),
};
// heavyTokenizer is the spec's 2-tokens-per-character tokenizer.
const heavyTokenizer = {
  encode(text) {
    const out = [];
    for (const c of Array.from(text)) { const code = c.codePointAt(0); out.push(code, code + 1); }
    return out;
  },
  decode(tokens) {
    const chars = [];
    for (let i = 0; i < tokens.length; i += 2) chars.push(tokens[i]);
    return String.fromCodePoint(...chars);
  },
};
const tokenizers = { char: charTokenizer, heavy: heavyTokenizer };

// The inputs of Vectra's TextSplitter.spec.ts (chunkSize 16, overlap 0 unless given).
const specCases = [
  { name: 'default constructor', config: { chunkSize: 400, chunkOverlap: 40 }, text: 'Hello world' },
  { name: 'lone ---', config: { chunkSize: 3 }, text: '---' },
  { name: 'separator lines at start, middle, end', config: { chunkSize: 4 }, text: ['---', 'Hello world', '***', 'Middle', '===='].join('\n') },
  { name: 'front matter', config: { chunkSize: 12 }, text: ['---', 'title: Test', 'tags: [a, b]', '---', '# Heading', 'Body text goes here.'].join('\n') },
  { name: 'trailing ---', config: { chunkSize: 4 }, text: 'Content\n---' },
  { name: 'alphanumeric words', config: { chunkSize: 5 }, text: 'abcde fghij' },
  { name: '--- with overlap', config: { chunkSize: 5, chunkOverlap: 2 }, text: '---\nabcdef' },
  { name: 'interleaved separators', config: { chunkSize: 8 }, text: ['***', 'A', '---', 'B', '====', 'C'].join('\n') },
  { name: 'newline joined by a space', config: { keepSeparators: false, chunkSize: 50 }, text: 'Hello\nWorld' },
  { name: 'newlines kept', config: { keepSeparators: true, chunkSize: 50 }, text: 'Hello\nWorld\n' },
  { name: 'no merge over budget', config: { chunkSize: 3, keepSeparators: false }, text: 'ABCD\nEFG' },
  { name: 'custom separators dropped', config: { docType: 'markdown', separators: ['||'], keepSeparators: false }, text: 'A||B||C' },
  { name: 'custom separators kept', config: { separators: ['||'], keepSeparators: true }, text: 'A||B||C' },
  { name: 'inline runs kept', config: { keepSeparators: true, chunkSize: 64 }, text: '---Hello---World---' },
  { name: 'consecutive separator lines', config: { keepSeparators: true, chunkSize: 64 }, text: ['---', '***', '===='].join('\n') },
  { name: 'space separator, one window', config: { separators: [' '], chunkSize: 100 }, text: 'a b c' },
  { name: 'empty separators fall back to the defaults', config: { separators: [], chunkSize: 100, keepSeparators: false }, text: 'HelloWorld' },
  { name: 'chunkSize 1', config: { separators: ['\n'], chunkSize: 1 }, text: 'x'.repeat(20) },
  { name: 'overlap', config: { chunkSize: 3, chunkOverlap: 2, separators: [], keepSeparators: false }, text: 'abcdefghi' },
  { name: 'maximal overlap', config: { chunkSize: 4, chunkOverlap: 4, separators: [], keepSeparators: false }, text: 'abcdefgh' },
  ...['cpp', 'go', 'typescript', 'javascript', 'php', 'proto', 'python', 'rst', 'ruby', 'rust', 'scala', 'swift', 'markdown',
    'latex', 'html', 'sol', ''].map((docType) => ({ name: `docType ${docType || 'default'}`, config: { chunkSize: 64, docType }, text: 'sample' })),
  { name: 'two tokens per character', tokenizer: 'heavy', config: { chunkSize: 6, chunkOverlap: 0 }, text: 'abcdef' },
];

function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = ['alpha', 'beta', 'gamma', 'delta', 'vector', 'search', 'index', 'the', 'a', 'of', 'x', 'y', '42', '2024',
  'foo_bar', 'CamelCase', 'supercalifragilisticexpialidocious', 'café', 'naïve', '日本語', 'Привет', '👋', '🎉', 'e\u0301'];
const glue = [' ', ' ', ' ', ' ', ' ', ' ', '\n', '\n', '\n\n', '\n## ', '\n### ', '\nclass ', '\ndef ', '\nfunc ', '\nif ',
  '\nfn ', '\nfunction ', '<p>', '<div>', '<li>', '\n---\n', '\n***\n', '```\n\n', '\n\n---\n\n', '\t', '  ', ', ', '. ', '; ',
  ' --- ', '---', '***', '\n\\section{', '// LLM-REGION', '\n.. ', '||', ' - '];

function randomText(rnd) {
  const n = Math.floor(rnd() * 60);
  let s = rnd() < 0.2 ? glue[Math.floor(rnd() * glue.length)] : '';
  for (let i = 0; i < n; i++) {
    s += words[Math.floor(rnd() * words.length)];
    s += glue[Math.floor(rnd() * glue.length)];
  }
  return s;
}

const docTypes = ['cpp', 'go', 'java', 'typescript', 'js', 'php', 'proto', 'python', 'rst', 'ruby', 'rust', 'scala',
  'swift', 'markdown', 'latex', 'html', 'sol', 'txt', ''];
const configs = [
  { chunkSize: 16, chunkOverlap: 0, keepSeparators: false },
  { chunkSize: 16, chunkOverlap: 0, keepSeparators: true },
  { chunkSize: 40, chunkOverlap: 8, keepSeparators: true },
  { chunkSize: 40, chunkOverlap: 40, keepSeparators: false },
  { chunkSize: 7, chunkOverlap: 3, keepSeparators: true },
];

function run(config, tokenizerName, text, left) {
  const splitter = new TextSplitter({ ...config, tokenizer: tokenizers[tokenizerName] });
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
  if (chunks.some((c) => loneSurrogate.test(c.text))) quirks.add('loneSurrogate');
  if (quirks.size > 0) { for (const q of quirks) left[q]++; return null; }
  return {
    tokenizer: tokenizerName,
    chunkSize: splitter._config.chunkSize, chunkOverlap: splitter._config.chunkOverlap,
    keepSeparators: splitter._config.keepSeparators, docType: config.docType ?? '',
    separators: config.separators ?? null, text,
    chunks: chunks.map((c) => ({ text: c.text, tokens: c.tokens, startPos: c.startPos, endPos: c.endPos,
      startOverlap: c.startOverlap, endOverlap: c.endOverlap })),
  };
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/;
const rnd = mulberry32(20250524);
const out = [];
const left = { spaceWindows: 0, strippedRun: 0, nonASCIIWord: 0, loneSurrogate: 0 };
for (const c of specCases) {
  const r = run({ chunkSize: 16, chunkOverlap: 0, ...c.config }, c.tokenizer ?? 'char', c.text, left);
  if (r === null) throw new Error(`spec case ${c.name} hits a fixed quirk`);
  out.push({ name: 'spec: ' + c.name, ...r });
}
let n = 0;
for (const docType of docTypes) {
  for (const config of configs) {
    for (let k = 0; k < 6; k++) {
      const text = randomText(rnd);
      const custom = rnd() < 0.15 ? ['||', ' - '] : undefined;
      const r = run({ ...config, docType, separators: custom }, 'char', text, left);
      n++;
      if (r !== null) out.push({ name: `random ${n}`, ...r });
    }
  }
}
process.stderr.write(`kept ${out.length} cases; left out ${JSON.stringify(left)}\n`);
process.stdout.write('[\n' + out.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n');
