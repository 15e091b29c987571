//go:build !(js && wasm)

package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/foliovec/folio/core"
)

// indexOptionsNotTaken are the fields of core.IndexOptions that the
// JavaScript constructors do not read from their engine options, and why.
var indexOptionsNotTaken = map[string]string{
	"IndexName":         "Vectra's own argument (indexName)",
	"Storage":           "Vectra's own argument (storage)",
	"Codec":             "Vectra's own argument (codec)",
	"Logger":            "a Go value; the page's console is not a logger",
	"DocReader":         "Vectra's docReader hook is not used (a document index reads its texts itself)",
	"KeywordScorer":     "Vectra's bm25Factory hook is not used (the built-in BM25)",
	"FreshnessInterval": "a page is one process: there is no other writer to look for",
	"RetainDropped":     "a page is one process: no reader on a previous state in another",
	"ResidentVectors":   "no browser storage maps files: vectors are always resident",
}

// Every field of core.IndexOptions is either read from the engine options
// by indexOptions (arguments.go) under its JavaScript name, declared in
// folio.d.ts, or listed in indexOptionsNotTaken: a new option fails here
// until the JavaScript module takes it or says why not.
func TestEveryIndexOptionReachesJavaScript(t *testing.T) {
	src, err := os.ReadFile("arguments.go")
	if err != nil {
		t.Fatal(err)
	}
	dts, err := os.ReadFile("package/folio.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`prop\(extra, "(\w+)"\)`).FindAllStringSubmatch(string(src), -1) {
		read[m[1]] = true
	}
	typ := reflect.TypeFor[core.IndexOptions]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		js := string(unicode.ToLower(rune(name[0]))) + name[1:]
		_, skipped := indexOptionsNotTaken[name]
		switch {
		case skipped && read[js]:
			t.Errorf("IndexOptions.%s is read as %q, yet listed as not taken", name, js)
		case skipped:
		case !read[js]:
			t.Errorf("IndexOptions.%s: indexOptions does not read %q, and indexOptionsNotTaken does not say why", name, js)
		case !strings.Contains(string(dts), "  "+js+"?:"):
			t.Errorf("IndexOptions.%s: folio.d.ts does not declare %q among the engine options", name, js)
		}
		delete(read, js)
	}
	for js := range read {
		t.Errorf("indexOptions reads %q, which is no field of core.IndexOptions", js)
	}
}
