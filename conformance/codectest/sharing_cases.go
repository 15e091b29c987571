package codectest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/foliovec/folio/core"
)

func sharingCases() []rule {
	return []rule{
		{"decoded values do not share the input bytes", checkDecodedNotAliased},
		{"encoded bytes are not reused by later calls", checkEncodedNotReused},
		{"encoding is deterministic when claimed", checkDeterministic},
	}
}

// checkDecodedNotAliased overwrites the input after decoding: the decoded
// values must not change (callers reuse read buffers).
func checkDecodedNotAliased(t testing.TB, c core.IndexCodec, caps Capabilities) {
	index, catalog, metadata, ok := encodings(t, c)
	if !ok {
		return
	}
	scribble := func(b []byte) {
		for i := range b {
			b[i] = 'x'
		}
	}
	if d, err := decodeIndex(c, index); err != nil {
		t.Errorf("deserialize index: %v", err)
	} else {
		scribble(index)
		if err := diffIndex(sampleIndex(), d, indexHow(caps)); err != nil {
			t.Errorf("index changed when its input was overwritten: %v", err)
		}
	}
	if d, err := decodeCatalog(c, catalog); err != nil {
		t.Errorf("deserialize catalog: %v", err)
	} else {
		scribble(catalog)
		if err := diffCatalog(sampleCatalog(), d, indexHow(caps)); err != nil {
			t.Errorf("catalog changed when its input was overwritten: %v", err)
		}
	}
	if m, err := decodeMetadata(c, metadata); err != nil {
		t.Errorf("deserialize metadata: %v", err)
	} else {
		scribble(metadata)
		if err := diffMetadata(sampleMetadata(), m, false); err != nil {
			t.Errorf("metadata changed when its input was overwritten: %v", err)
		}
	}
}

// checkEncodedNotReused encodes one value, then another: the first bytes
// must stay as they were (callers hold them while writing).
func checkEncodedNotReused(t testing.TB, c core.IndexCodec, _ Capabilities) {
	first, err := encodeIndex(c, sampleIndex())
	if err != nil {
		t.Errorf("serialize index: %v", err)
		return
	}
	kept := bytes.Clone(first)
	other := sampleIndex()
	other.Items[0].ID = "another id of another length"
	other.Items[0].Vector = []float32{9, 8, 7, 6, 5}
	if _, err := encodeIndex(c, other); err != nil {
		t.Errorf("serialize index: %v", err)
		return
	}
	if _, err := encodeCatalog(c, sampleCatalog()); err != nil {
		t.Errorf("serialize catalog: %v", err)
		return
	}
	if _, err := encodeMetadata(c, core.Metadata{"other": "value"}); err != nil {
		t.Errorf("serialize metadata: %v", err)
		return
	}
	if !bytes.Equal(first, kept) {
		t.Errorf("bytes returned by SerializeIndex changed after later Serialize calls")
	}
}

// checkDeterministic encodes values with many map keys ten times each: a
// codec that claims Deterministic gives the same bytes every time.
func checkDeterministic(t testing.TB, c core.IndexCodec, caps Capabilities) {
	if !caps.Deterministic {
		return
	}
	m := core.Metadata{}
	cat := core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}}
	for i := range 40 {
		k := fmt.Sprintf("key-%02d", i)
		m[k] = float64(i)
		cat.URIToID[k], cat.IDToURI[k], cat.URIToHash[k] = k, k, k
	}
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Metadata: m, Vector: []float32{1}, Norm: 1}}}
	var first [3][]byte
	for round := range 10 {
		var got [3][]byte
		var errs [3]error
		got[0], errs[0] = encodeIndex(c, d)
		got[1], errs[1] = encodeCatalog(c, cat)
		got[2], errs[2] = encodeMetadata(c, m)
		for i, what := range []string{"index", "catalog", "metadata"} {
			if errs[i] != nil {
				t.Errorf("serialize %s: %v", what, errs[i])
				return
			}
			if round == 0 {
				first[i] = got[i]
			} else if !bytes.Equal(first[i], got[i]) {
				t.Errorf("serialize %s: round %d gave different bytes than round 0", what, round)
				return
			}
		}
	}
}
