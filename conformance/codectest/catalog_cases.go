package codectest

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

func catalogCases() []testCase {
	return []testCase{
		{"catalog round-trips", checkCatalog},
		{"empty catalog round-trips", checkEmptyCatalog},
		{"catalog without uriToHash reads back a nil uriToHash", checkCatalogWithoutHash},
		{"empty uriToHash reads back empty", checkCatalogEmptyHash},
		{"unicode catalog keys and values round-trip", checkUnicodeCatalog},
	}
}

// roundTripCatalog encodes and decodes d and records any error or
// difference under label.
func roundTripCatalog(c core.IndexCodec, d core.DocumentCatalog, h how, r *report, label string) {
	b, err := encodeCatalog(c, d)
	if err != nil {
		r.errorf("%s: serialize catalog: %w", label, err)
		return
	}
	got, err := decodeCatalog(c, b)
	if err != nil {
		r.errorf("%s: deserialize catalog: %w", label, err)
		return
	}
	if err := diffCatalog(d, got, h); err != nil {
		r.errorf("%s: round trip: %w", label, err)
	}
}

func checkCatalog(c core.IndexCodec, caps Capabilities, r *report) {
	roundTripCatalog(c, sampleCatalog(), indexHow(caps), r, "sample catalog")
	big := core.DocumentCatalog{Version: 1, Count: 300, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}}
	for i := range 300 {
		uri, id := fmt.Sprintf("doc/%03d.md", i), fmt.Sprintf("00000002-0000-4000-8000-%012x", i)
		big.URIToID[uri], big.IDToURI[id], big.URIToHash[uri] = id, uri, fmt.Sprintf("%064x", i)
	}
	roundTripCatalog(c, big, indexHow(caps), r, "300 documents")
	stale := sampleCatalog()
	stale.Count = 7 // count is maintained by ++/--, never recomputed
	roundTripCatalog(c, stale, indexHow(caps), r, "count differing from the maps")
}

func checkEmptyCatalog(c core.IndexCodec, caps Capabilities, r *report) {
	roundTripCatalog(c, core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}, indexHow(caps), r, "initial catalog")
	roundTripCatalog(c, core.DocumentCatalog{}, indexHow(caps), r, "zero catalog")
}

func checkCatalogWithoutHash(c core.IndexCodec, caps Capabilities, r *report) {
	d := sampleCatalog()
	d.URIToHash = nil
	b, err := encodeCatalog(c, d)
	if err != nil {
		r.errorf("serialize catalog: %w", err)
		return
	}
	got, err := decodeCatalog(c, b)
	if err != nil {
		r.errorf("deserialize catalog: %w", err)
		return
	}
	if got.URIToHash != nil {
		r.errorf("uriToHash: got %#v, want nil", got.URIToHash)
	}
	if err := diffCatalog(d, got, indexHow(caps)); err != nil {
		r.errorf("round trip: %w", err)
	}
}

func checkCatalogEmptyHash(c core.IndexCodec, caps Capabilities, r *report) {
	d := sampleCatalog()
	d.URIToHash = map[string]string{}
	roundTripCatalog(c, d, indexHow(caps), r, "empty non-nil uriToHash")
}

func checkUnicodeCatalog(c core.IndexCodec, caps Capabilities, r *report) {
	d := core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}}
	for i, s := range trickyStrings {
		id := fmt.Sprintf("id-%d-%s", i, s)
		d.URIToID[s], d.IDToURI[id], d.URIToHash[s] = id, s, s
		d.Count++
	}
	roundTripCatalog(c, d, indexHow(caps), r, "tricky strings")
}
