// Regenerates o200k_golden.json: token ids of o200k_base as Vectra 0.15's
// tokenizer (gpt-tokenizer 3.4.0, the package's default o200k_base encoding)
// computes them. Special-token strings are encoded as ordinary text, as
// Folio's tokenizer does (Vectra itself throws on them).
//
//   npm install gpt-tokenizer@3.4.0 && node generate-golden.js > o200k_golden.json
const { encode } = require('gpt-tokenizer');

const texts = [
  '',
  'a',
  'hello world',
  'Hello, World!',
  'Hello, World! café 👋',
  ' leading space',
  'trailing space ',
  '  two leading spaces',
  'multiple    spaces   between',
  'line one\nline two\r\nline three\n',
  '\n\n\n',
  '   \n  \n\t',
  'tabs\tand\ttabs',
  "I'm sure they'll say it's fine, WE'VE done it, don't worry",
  'numbers 1234567890 3.14159 -42 1e10 007',
  'punctuation !@#$%^&*()_+-=[]{}|;\':",./<>?`~',
  'func main() {\n\tfmt.Println("hi")\n}\n',
  'def cosine(a, b):\n    return dot(a, b) / (norm(a) * norm(b))\n',
  '<!DOCTYPE html>\n<html><body><p>Hybrid search</p></body></html>',
  '# Heading\n\n## Sub heading\n\n- item one\n- item two\n\n```go\nx := 1\n```\n',
  'café naïve résumé Straße',
  'ÀÉÎ àéî ß İ',
  'Привет, мир! Как дела?',
  'こんにちは世界',
  '日本語のテキスト should all survive',
  '中文字符测试，标点。',
  '한국어 텍스트',
  'שלום עולם مرحبا بالعالم',
  'emoji 👋🌍🎉',
  'family 👨‍👩‍👧‍👦 here',
  'flags 🇯🇵🇺🇸',
  'The Long Guide 📚 ✨',
  'e\u0301 a\u0308 n\u0303 Z\u0324\u0354\u0367\u0311\u0313',
  'non\u00a0breaking\u2009thin\u200bzero\u3000wide',
  '\ufeffBOM',
  '\ufeff\ufeff# title\n\ufeffusing System;\n',
  'a\ufeff\nb x \ufeff y',
  'next\u0085line and\u2028separator\u2029para',
  'vertical\u000btab form\u000cfeed',
  'ideographic\u3000space\u202fnarrow\u205fmath\u1680ogham',
  'long s: it\u2019s \u017fo, it\'\u017f, IT\'S, K\'\u212a',
  '<|endoftext|>',
  'before <|endoftext|> after',
  '<|endofprompt|>',
  '<|im_start|>user\nhi<|im_end|>',
  '[CLS] text [SEP] [MASK]',
  'Vector search finds items whose embedding is close to a query embedding. A vector database stores\neach item as a list of numbers together with metadata.',
  'Pinecone-style filters use operators such as\n$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $and and $or.',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'https://example.com/path?query=1&other=two#fragment',
  'CamelCaseIdentifier snake_case_identifier SCREAMING_CASE kebab-case',
];

const out = texts.map((text) => ({ text, ids: encode(text, { disallowedSpecial: new Set() }) }));
process.stdout.write('[\n' + out.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n');
