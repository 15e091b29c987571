// Regenerates golden.json: the content hashes Vectra 0.15 itself computes
// (lib/internals/contentHash.js, REF §4.4) for inputs chosen to exercise key
// sorting by UTF-16 code units, JSON string escaping and ES6 number text.
//
//   npm install --ignore-scripts vectra@0.15.0 && node generate.js > golden.json
//
// Metadata is written as [key, kind, text] triples so that both sides read the
// same values: kind "s" is a string, "b" a boolean ("true"/"false"), "n" a
// number given as the text JavaScript's Number() and Go's ParseFloat both read
// ("-0", "1e21", "0.1"). A null metadata means undefined.
// The package's exports map hides lib/internals, so the file is loaded by path.
const path = require('path');
const { computeContentHash } = require(path.join(path.dirname(require.resolve('vectra')), 'internals', 'contentHash.js'));

const cases = [
  { name: 'text only', text: 'hello' },
  { name: 'empty everything', text: '' },
  { name: 'docType only', text: 'same', docType: 'md' },
  { name: 'empty docType', text: 'same', docType: '' },
  { name: 'empty metadata', text: 't', docType: 'md', metadata: [] },
  { name: 'unicode text', text: 'Résumé 日本語 \u{1F4DA} ✨\r\n\ttab', docType: 'txt' },
  { name: 'NUL inside text', text: 'a\u0000b', docType: 'b\u0000' },
  {
    name: 'numbers as ES6 prints them',
    text: 'numbers',
    metadata: [
      ['int', 'n', '2024'], ['neg', 'n', '-7'], ['negzero', 'n', '-0'], ['zero', 'n', '0'],
      ['tenth', 'n', '0.1'], ['third', 'n', '0.3333333333333333'], ['big', 'n', '1e21'],
      ['justbelowbig', 'n', '999999999999999900000'], ['tiny', 'n', '1e-7'], ['small', 'n', '0.000001'],
      ['neg tiny', 'n', '-1.5e-10'], ['huge', 'n', '1.7976931348623157e308'], ['min', 'n', '5e-324'],
      ['maxsafe', 'n', '9007199254740993'], ['pi', 'n', '3.141592653589793'], ['float32ish', 'n', '0.10000000149011612'],
    ],
  },
  {
    name: 'strings as JSON.stringify escapes them',
    text: 'strings',
    docType: 'md',
    metadata: [
      ['quote', 's', 'say "hi"'], ['backslash', 's', 'C:\\path\\to'], ['controls', 's', '\b\f\n\r\t'],
      ['low controls', 's', '\u0000\u0001\u001f'], ['del', 's', '\u007f'], ['html', 's', '<a href="x">&amp;</a>'],
      ['separators', 's', 'line\u2028para\u2029end'], ['emoji', 's', '\u{1F600}'], ['empty', 's', ''],
      ['key "with" \\ escapes\n', 's', 'v'],
    ],
  },
  {
    name: 'booleans',
    text: 'b',
    metadata: [['yes', 'b', 'true'], ['no', 'b', 'false']],
  },
  {
    name: 'keys sort by UTF-16 code units',
    text: 'sort',
    metadata: [
      ['\u{1F600}', 's', 'astral'], ['\uFF01', 's', 'fullwidth'], ['\uE000', 's', 'private use'],
      ['Z', 's', 'upper'], ['a', 's', 'lower'], ['aa', 's', 'longer'], ['', 's', 'empty key'],
      ['\u00e9', 's', 'latin'], ['\u{10000}', 's', 'first astral'], ['\u{1F4DA}', 's', 'books'], ['10', 'n', '10'], ['9', 'n', '9'],
    ],
  },
  {
    name: 'fixture-like metadata',
    text: '# Title\n\nBody text.\n',
    metadata: [['draft', 'b', 'false'], ['lang', 's', 'en'], ['topic', 's', 'guide'], ['year', 'n', '2024']],
  },
];

function toValue([, kind, text]) {
  switch (kind) {
    case 's': return text;
    case 'b': return text === 'true';
    case 'n': return Number(text);
    default: throw new Error(`unknown kind ${kind}`);
  }
}

const out = cases.map((c) => {
  let metadata;
  if (c.metadata) {
    metadata = {};
    for (const entry of c.metadata) metadata[entry[0]] = toValue(entry);
  }
  return {
    name: c.name,
    text: c.text,
    docType: c.docType ?? null,
    metadata: c.metadata ?? null,
    hash: computeContentHash(c.text, c.docType, metadata),
  };
});
process.stdout.write(JSON.stringify({ generator: 'vectra@0.15.0 computeContentHash', cases: out }, null, 1) + '\n');
