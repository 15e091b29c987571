//go:build !(js && wasm)

package main

import (
	"os"
	"slices"
	"testing"
)

// vectraPrivate are members of Vectra's classes that its declarations mark
// private or protected: present at run time, not part of its API.
var vectraPrivate = map[string]bool{
	"loadIndexData": true, "addItemToUpdate": true, "setupBm25": true, "bm25Search": true,
	"_catalogName": true, "isBm25Chunk": true, "createAllSectionsPacker": true,
	"buildFallbackTopChunkSection": true, "buildSectionsFor": true, "recursiveSplit": true,
	"stripInlineSeparators": true, "finalizeToChunks": true, "combineChunks": true,
	"splitBySpaces": true, "getSeparators": true, "getDB": true, "normalizePath": true,
	"getParentPath": true, "normalizeKey": true, "htmlToMarkdown": true, "processNode": true,
	"processChildren": true, "getTextContent": true, "processTable": true,
	"getDocTypeFromMime": true, "createEmbeddingRequest": true, "post": true,
	"dotProduct": true, "metadataFilter": true, "ALLOWED_CONTENT_TYPES": true,
}

type shape map[string]struct {
	Type    string
	Statics []string
	Members []string
}

// TestExportsAsVectra loads Vectra's browser build and Folio's module in
// one Chromium and checks that Folio exports everything Vectra's browser
// entry exports at run time, of the same kind, with every public static
// and method of each class.
func TestExportsAsVectra(t *testing.T) {
	if os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE") == "" {
		t.Skip("FOLIO_VECTRA_BROWSER_BUNDLE is not set (make test builds Vectra's browser bundle and sets it)")
	}
	s := newSite(t, nil)
	ctx := newBrowser(t)
	var vectra, folio shape
	s.runPage(t, ctx, map[string]string{"test": "exports", "lib": "vectra"}, &vectra)
	s.runPage(t, ctx, map[string]string{"test": "exports", "lib": "folio"}, &folio)
	if len(vectra) < 15 {
		t.Fatalf("Vectra's bundle exports only %d names: %v", len(vectra), vectra)
	}
	for name, v := range vectra {
		f, ok := folio[name]
		if !ok {
			t.Errorf("Folio does not export %s (a %s in Vectra)", name, v.Type)
			continue
		}
		if f.Type != v.Type {
			t.Errorf("%s is a %s, want a %s", name, f.Type, v.Type)
		}
		for _, m := range v.Statics {
			if !vectraPrivate[m] && !slices.Contains(f.Statics, m) {
				t.Errorf("%s has no static %s", name, m)
			}
		}
		for _, m := range v.Members {
			if !vectraPrivate[m] && !slices.Contains(f.Members, m) {
				t.Errorf("%s has no %s", name, m)
			}
		}
	}
}
