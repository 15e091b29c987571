package codectest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

func corruptCases() []rule {
	return []rule{
		{"truncated index encodings fail or decode without panic as claimed", checkTruncatedIndex},
		{"truncated catalog encodings fail or decode without panic as claimed", checkTruncatedCatalog},
		{"truncated metadata encodings fail or decode without panic as claimed", checkTruncatedMetadata},
		{"flipped bytes give ErrCorrupt or a stable value, never a panic", checkFlippedBytes},
		{"garbage gives ErrCorrupt or a stable value, never a panic", checkGarbage},
	}
}

// kind is one of the three things a codec decodes, with the checks the
// corrupt-input cases run on it.
type kind struct {
	name string
	// decode decodes b; on success stable re-encodes the value, decodes it
	// again and reports any difference.
	decode func(c core.IndexCodec, b []byte) (stable func() error, err error)
}

func kinds(caps Capabilities) []kind {
	h := stableHow(caps)
	return []kind{
		{"index", func(c core.IndexCodec, b []byte) (func() error, error) {
			d, err := decodeIndex(c, b)
			return func() error {
				b2, err := encodeIndex(c, d)
				if err != nil {
					return fmt.Errorf("serialize decoded index: %w", err)
				}
				d2, err := decodeIndex(c, b2)
				if err != nil {
					return fmt.Errorf("deserialize re-encoded index: %w", err)
				}
				return diffIndex(d, d2, h)
			}, err
		}},
		{"catalog", func(c core.IndexCodec, b []byte) (func() error, error) {
			d, err := decodeCatalog(c, b)
			return func() error {
				b2, err := encodeCatalog(c, d)
				if err != nil {
					return fmt.Errorf("serialize decoded catalog: %w", err)
				}
				d2, err := decodeCatalog(c, b2)
				if err != nil {
					return fmt.Errorf("deserialize re-encoded catalog: %w", err)
				}
				return diffCatalog(d, d2, h)
			}, err
		}},
		{"metadata", func(c core.IndexCodec, b []byte) (func() error, error) {
			m, err := decodeMetadata(c, b)
			return func() error {
				b2, err := encodeMetadata(c, m)
				if err != nil {
					return fmt.Errorf("serialize decoded metadata: %w", err)
				}
				m2, err := decodeMetadata(c, b2)
				if err != nil {
					return fmt.Errorf("deserialize re-encoded metadata: %w", err)
				}
				return diffMetadata(m, m2, true)
			}, err
		}},
	}
}

// checkBad decodes bad bytes as k. mustFail says the bytes must be
// rejected. Otherwise an error must wrap core.ErrCorrupt, and a decoded
// value must survive another encode and decode. Returns false after the
// first violation so that a broken codec reports a handful, not thousands.
func checkBad(t testing.TB, c core.IndexCodec, k kind, b []byte, mustFail bool, label string) bool {
	stable, err := k.decode(c, b)
	var pe *panicError
	switch {
	case errors.As(err, &pe):
		t.Errorf("%s: deserialize %s of %s: %v", label, k.name, quote(b), err)
		return false
	case err != nil && !errors.Is(err, core.ErrCorrupt):
		t.Errorf("%s: deserialize %s of %s: got error %v, want one wrapping core.ErrCorrupt", label, k.name, quote(b), err)
		return false
	case err == nil && mustFail:
		t.Errorf("%s: deserialize %s of %s: got no error, want one wrapping core.ErrCorrupt", label, k.name, quote(b))
		return false
	case err == nil:
		if err := stable(); err != nil {
			t.Errorf("%s: %s decoded from %s does not survive another round trip: %v", label, k.name, quote(b), err)
			return false
		}
	}
	return true
}

// quote shows at most 80 bytes of b.
func quote(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%q… (%d bytes)", b[:80], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// encodings returns a valid encoding of each kind's sample, or records why
// there is none.
func encodings(t testing.TB, c core.IndexCodec) (index, catalog, metadata []byte, ok bool) {
	var errs [3]error
	index, errs[0] = encodeIndex(c, sampleIndex())
	catalog, errs[1] = encodeCatalog(c, sampleCatalog())
	metadata, errs[2] = encodeMetadata(c, sampleMetadata())
	for _, err := range errs {
		if err != nil {
			t.Errorf("serialize samples: %v", err)
			return nil, nil, nil, false
		}
	}
	return index, catalog, metadata, true
}

func checkTruncated(t testing.TB, c core.IndexCodec, caps Capabilities, which int) {
	encs := [3][]byte{}
	var ok bool
	encs[0], encs[1], encs[2], ok = encodings(t, c)
	if !ok {
		return
	}
	mustFail := caps.TruncatedIndexFails
	if which == 2 {
		mustFail = caps.TruncatedMetadataFails
	}
	k := kinds(caps)[which]
	valid := encs[which]
	for n := range len(valid) {
		if !checkBad(t, c, k, valid[:n:n], mustFail, fmt.Sprintf("prefix of %d of %d bytes", n, len(valid))) {
			return
		}
	}
}

func checkTruncatedIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	checkTruncated(t, c, caps, 0)
}

func checkTruncatedCatalog(t testing.TB, c core.IndexCodec, caps Capabilities) {
	checkTruncated(t, c, caps, 1)
}

func checkTruncatedMetadata(t testing.TB, c core.IndexCodec, caps Capabilities) {
	checkTruncated(t, c, caps, 2)
}

func checkFlippedBytes(t testing.TB, c core.IndexCodec, caps Capabilities) {
	index, catalog, metadata, ok := encodings(t, c)
	if !ok {
		return
	}
	rng := rand.New(rand.NewPCG(0xf1, 0x1b))
	for i, valid := range [][]byte{index, catalog, metadata} {
		k := kinds(caps)[i]
		for trial := range 300 {
			b := append([]byte(nil), valid...)
			for range 1 + rng.IntN(3) {
				pos := rng.IntN(len(b))
				if trial%2 == 0 {
					b[pos] ^= 1 << rng.IntN(8)
				} else {
					b[pos] = byte(rng.IntN(256))
				}
			}
			if !checkBad(t, c, k, b, false, fmt.Sprintf("flip trial %d", trial)) {
				break
			}
		}
	}
}

// garbage is input no codec wrote: random bytes and malformed or
// mistyped text in a few shapes.
func garbage() [][]byte {
	rng := rand.New(rand.NewPCG(0x9a, 0xbe))
	g := [][]byte{
		nil, {}, {0}, {0xff}, {0xff, 0xfe, 0xfd}, []byte("\x80\x81\x82"),
		[]byte("null"), []byte("true"), []byte("0"), []byte("-1"), []byte(`"string"`), []byte("[]"), []byte("[1,2,3]"),
		[]byte("{"), []byte("}"), []byte("{}"), []byte("{}{}"), []byte(`{"a":1}x`), []byte(`{"a" 1}`),
		[]byte(`{"version":"1"}`), []byte(`{"version":1.5}`), []byte(`{"version":1e400}`), []byte(`{"version":-1}`),
		[]byte(`{"items":null}`), []byte(`{"items":{}}`), []byte(`{"items":[null]}`), []byte(`{"items":[1]}`),
		[]byte(`{"items":[{"id":1}]}`), []byte(`{"items":[{"vector":"x"}]}`), []byte(`{"items":[{"vector":["a"]}]}`),
		[]byte(`{"items":[{"vector":[1e999]}]}`), []byte(`{"items":[{"vector":[1,]}]}`), []byte(`{"items":[{"norm":"1"}]}`),
		[]byte(`{"items":[{"norm":1e999}]}`), []byte(`{"items":[{"metadata":[]}]}`), []byte(`{"items":[{"metadataFile":7}]}`),
		[]byte(`{"metadata_config":{"indexed":"a"}}`), []byte(`{"metadata_config":{"indexed":[1]}}`), []byte(`{"metadata_config":[]}`),
		[]byte(`{"uriToId":[]}`), []byte(`{"uriToId":{"a":1}}`), []byte(`{"count":"2"}`), []byte(`{"count":-1}`), []byte(`{"uriToHash":null}`),
		[]byte(`{"a":"\ud800"}`), []byte(`{"a":"\x00"}`), []byte("{\"a\":\"\xff\"}"), []byte(`{"a":1e999}`), []byte(`{"a":01}`),
		[]byte(`{"a":-}`), []byte(`{"a":.5}`), []byte(`{"a":"\u12"}`), []byte(`{"a":nul}`), []byte(`{"a":1,"a":2}`),
		[]byte(strings.Repeat("[", 1000) + strings.Repeat("]", 1000)),
		[]byte(`{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "}"),
		[]byte(strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500)),
		// protobuf-shaped garbage: tags with lengths past the end, bad wire types, overlong varints
		{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, {0x1a, 0x05, 0x0a}, {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0x0f}, {0x1a, 0x03, 0x1a, 0x01, 0x00}, {0x22, 0x02, 0x0a, 0x00},
	}
	for _, n := range []int{1, 2, 5, 16, 64, 256, 1024} {
		for range 4 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			g = append(g, b)
		}
	}
	return g
}

func checkGarbage(t testing.TB, c core.IndexCodec, caps Capabilities) {
	for _, k := range kinds(caps) {
		for i, b := range garbage() {
			checkBad(t, c, k, b, false, fmt.Sprintf("garbage %d", i))
		}
	}
}
