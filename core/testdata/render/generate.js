// Regenerates golden.json: what Vectra 0.15's own LocalDocumentResult returns
// from renderSections and renderAllSections for seeded random documents and
// chunk lists, with two tokenizers:
//   - "char": one token per code point (Vectra's LocalDocumentResult.spec.ts);
//   - "pair": one token per two code points, so a text's tokens are not the
//     concatenation of its parts' tokens.
//
//   npm install --ignore-scripts vectra@0.15.0 && node generate.js > golden.json
//
// Documents mix ASCII with characters outside the BMP (surrogate pairs), so
// positions are UTF-16 offsets; chunk boundaries never cut a pair (JavaScript
// would produce lone surrogates, which Go strings cannot hold). Sections that
// Vectra builds with buildFallbackTopChunkSection are flagged "fallback": Folio
// reports their real token count there (a documented fix).
const { LocalDocumentResult } = require('vectra');

// mulberry32: a small seeded generator, so the file is reproducible.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tokenizers = {
  char: {
    encode: (text) => Array.from(text).map((c) => c.codePointAt(0)),
    decode: (tokens) => String.fromCodePoint(...tokens),
  },
  pair: {
    encode(text) {
      const cps = Array.from(text).map((c) => c.codePointAt(0));
      const out = [];
      for (let i = 0; i < cps.length; i += 2) {
        out.push(i + 1 < cps.length ? cps[i] * 2097152 + cps[i + 1] + 1 : cps[i] * 2097152);
      }
      return out;
    },
    decode(tokens) {
      const cps = [];
      for (const t of tokens) {
        const hi = Math.floor(t / 2097152);
        const lo = t % 2097152;
        cps.push(hi);
        if (lo > 0) cps.push(lo - 1);
      }
      return String.fromCodePoint(...cps);
    },
  },
};

const alphabet = ['a', 'b', 'c', ' ', '.', '\n', 'x', 'y', 'é', '日', '\u{1F4DA}', '\u{1F600}'];
const bm25Flags = [undefined, undefined, undefined, false, true, 'true', 1, '1'];

// Mark fallback sections by wrapping Vectra's own helper.
const origFallback = LocalDocumentResult.prototype.buildFallbackTopChunkSection;
LocalDocumentResult.prototype.buildFallbackTopChunkSection = function (...args) {
  return origFallback.apply(this, args).map((s) => ({ ...s, fallback: true }));
};

function makeCase(r, n) {
  const chars = [];
  const len = 60 + Math.floor(r() * 240);
  for (let i = 0; i < len; i++) chars.push(alphabet[Math.floor(r() * alphabet.length)]);
  const doc = chars.join('');
  // UTF-16 offsets where a character starts, plus the end.
  const bounds = [];
  let off = 0;
  for (const c of chars) { bounds.push(off); off += c.length; }
  bounds.push(off);
  const nChunks = Math.floor(r() * 9);
  const chunks = [];
  for (let i = 0; i < nChunks; i++) {
    let a = Math.floor(r() * (bounds.length - 1));
    let b = a + 1 + Math.floor(r() * Math.min(40, bounds.length - 1 - a));
    if (r() < 0.3 && chunks.length > 0) {
      // Adjacent to or overlapping an earlier chunk.
      const prev = chunks[Math.floor(r() * chunks.length)];
      const startIdx = bounds.indexOf(prev.endPos + 1);
      if (startIdx >= 0 && startIdx < bounds.length - 1) {
        a = r() < 0.5 ? startIdx : Math.max(0, startIdx - 3);
        b = Math.min(bounds.length - 1, a + 1 + Math.floor(r() * 20));
      }
    }
    const scoreKind = r();
    const score = scoreKind < 0.2 ? Math.round(r() * 9) / 100 : scoreKind < 0.3 ? 1.5 + r() * 4 : r();
    chunks.push({ startPos: bounds[a], endPos: bounds[b] - 1, score, isBm25: bm25Flags[Math.floor(r() * bm25Flags.length)] });
  }
  const tokName = r() < 0.5 ? 'char' : 'pair';
  const calls = [];
  for (let k = 0; k < 4; k++) {
    const maxTokens = 1 + Math.floor(r() * 80);
    if (k === 3) {
      calls.push({ kind: 'all', maxTokens });
    } else {
      calls.push({ kind: 'sections', maxTokens, maxSections: Math.floor(r() * 4), overlapping: r() < 0.6 });
    }
  }
  return { name: `random ${n}`, doc, tokenizer: tokName, chunks, calls };
}

async function run(c) {
  const tok = tokenizers[c.tokenizer];
  const results = c.chunks.map((ch, i) => {
    const metadata = { documentId: 'doc', startPos: ch.startPos, endPos: ch.endPos };
    if (ch.isBm25 !== undefined) metadata.isBm25 = ch.isBm25;
    return { item: { id: `c${i}`, metadata, vector: [], norm: 0 }, score: ch.score };
  });
  const index = { folderPath: '/none', tokenizer: tok };
  for (const call of c.calls) {
    const res = new LocalDocumentResult(index, 'doc', 'doc://x', results, tok);
    res.loadText = async () => c.doc;
    call.out = call.kind === 'all'
      ? await res.renderAllSections(call.maxTokens)
      : await res.renderSections(call.maxTokens, call.maxSections, call.overlapping);
  }
  return c;
}

(async () => {
  const r = rng(20260521);
  const cases = [];
  for (let n = 0; n < 200; n++) cases.push(await run(makeCase(r, n)));
  process.stdout.write(JSON.stringify({ generator: 'vectra@0.15.0 LocalDocumentResult', cases }) + '\n');
})();
