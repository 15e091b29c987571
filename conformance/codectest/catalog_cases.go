package codectest

import (
	"fmt"
	"testing"

	"github.com/foliovec/folio/core"
)

func catalogCases() []rule {
	return []rule{
		{"catalog round-trips", checkCatalog},
		{"empty catalog round-trips", checkEmptyCatalog},
		{"catalog without uriToHash reads back a nil uriToHash", checkCatalogWithoutHash},
		{"empty uriToHash reads back empty", checkCatalogEmptyHash},
		{"unicode catalog keys and values round-trip", checkUnicodeCatalog},
	}
}

// roundTripCatalog encodes and decodes d and records any error or
// difference under label.
func roundTripCatalog(t testing.TB, c core.IndexCodec, d core.DocumentCatalog, h how, label string) {
	b, err := encodeCatalog(c, d)
	if err != nil {
		t.Errorf("%s: serialize catalog: %v", label, err)
		return
	}
	got, err := decodeCatalog(c, b)
	if err != nil {
		t.Errorf("%s: deserialize catalog: %v", label, err)
		return
	}
	if err := diffCatalog(d, got, h); err != nil {
		t.Errorf("%s: round trip: %v", label, err)
	}
}

func checkCatalog(t testing.TB, c core.IndexCodec, caps Capabilities) {
	roundTripCatalog(t, c, sampleCatalog(), indexHow(caps), "sample catalog")
	big := core.DocumentCatalog{Version: 1, Count: 300, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}}
	for i := range 300 {
		uri, id := fmt.Sprintf("doc/%03d.md", i), fmt.Sprintf("00000002-0000-4000-8000-%012x", i)
		big.URIToID[uri], big.IDToURI[id], big.URIToHash[uri] = id, uri, fmt.Sprintf("%064x", i)
	}
	roundTripCatalog(t, c, big, indexHow(caps), "300 documents")
	stale := sampleCatalog()
	stale.Count = 7 // count is maintained by ++/--, never recomputed
	roundTripCatalog(t, c, stale, indexHow(caps), "count differing from the maps")
}

func checkEmptyCatalog(t testing.TB, c core.IndexCodec, caps Capabilities) {
	roundTripCatalog(t, c, core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}, indexHow(caps), "initial catalog")
	roundTripCatalog(t, c, core.DocumentCatalog{}, indexHow(caps), "zero catalog")
}

func checkCatalogWithoutHash(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := sampleCatalog()
	d.URIToHash = nil
	b, err := encodeCatalog(c, d)
	if err != nil {
		t.Errorf("serialize catalog: %v", err)
		return
	}
	got, err := decodeCatalog(c, b)
	if err != nil {
		t.Errorf("deserialize catalog: %v", err)
		return
	}
	if got.URIToHash != nil {
		t.Errorf("uriToHash: got %#v, want nil", got.URIToHash)
	}
	if err := diffCatalog(d, got, indexHow(caps)); err != nil {
		t.Errorf("round trip: %v", err)
	}
}

func checkCatalogEmptyHash(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := sampleCatalog()
	d.URIToHash = map[string]string{}
	roundTripCatalog(t, c, d, indexHow(caps), "empty non-nil uriToHash")
}

func checkUnicodeCatalog(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}}
	for i, s := range trickyStrings {
		id := fmt.Sprintf("id-%d-%s", i, s)
		d.URIToID[s], d.IDToURI[id], d.URIToHash[s] = id, s, s
		d.Count++
	}
	roundTripCatalog(t, c, d, indexHow(caps), "tricky strings")
}
