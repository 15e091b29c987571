package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

// benchDocuments is how many documents BenchmarkDocuments indexes.
const benchDocuments = 1000

// benchCorpus is benchDocuments documents: every file of the corpora
// under testdata/eval (the installed ones too), then Go's own sources
// (GOROOT/src, on every machine with Go) for the rest; and every question
// of those corpora.
func benchCorpus(b *testing.B) ([]core.DocumentInput, []string) {
	b.Helper()
	var docs []core.DocumentInput
	var questions []string
	dirs, err := filepath.Glob("../../testdata/eval/*/questions.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, qf := range dirs {
		dir := filepath.Dir(qf)
		ds, _, err := readCorpus(dir, "../../.cache/eval")
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			d.URI = filepath.Base(dir) + "/" + d.URI
			docs = append(docs, d)
		}
		raw, err := os.ReadFile(qf)
		if err != nil {
			b.Fatal(err)
		}
		var qs []question
		if err := json.Unmarshal(raw, &qs); err != nil {
			b.Fatal(err)
		}
		for _, q := range qs {
			questions = append(questions, q.Question)
		}
	}
	src := filepath.Join(goroot(b), "src")
	var extra []string
	filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" && filepath.Base(path) == "doc.go" {
			extra = append(extra, path)
		}
		return nil
	})
	filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" && filepath.Base(path) != "doc.go" && len(extra) < benchDocuments {
			extra = append(extra, path)
		}
		return nil
	})
	slices.Sort(extra)
	for _, path := range extra {
		if len(docs) >= benchDocuments {
			break
		}
		text, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(src, path)
		docs = append(docs, core.DocumentInput{URI: "go/" + filepath.ToSlash(rel), Text: string(text)})
	}
	if len(docs) < benchDocuments {
		b.Fatalf("%d documents, want %d", len(docs), benchDocuments)
	}
	return docs[:benchDocuments], questions
}

// BenchmarkDocuments measures, on 1,000 documents, folio add (add: the
// whole index built, per op) and one question of folio query's default
// (query: rank fusion, then the first document's passage, per op), in
// Folio's setup and in the setup before fields and structured passages,
// side by side in one run.
func BenchmarkDocuments(b *testing.B) {
	docs, questions := benchCorpus(b)
	c := config{dims: 384, chunkSize: 256, tokens: core.DefaultRenderTokens, weights: core.DefaultFieldWeights()}
	for _, su := range []setup{{name: "before", before: true}, {name: folioSetup}} {
		name := map[bool]string{true: "before", false: "folio"}[su.before]
		b.Run(fmt.Sprintf("%s/add", name), func(b *testing.B) {
			for b.Loop() {
				_, _, cleanup, err := build(b.Context(), docs, c, su)
				if err != nil {
					b.Fatal(err)
				}
				cleanup()
			}
		})
		b.Run(fmt.Sprintf("%s/query", name), func(b *testing.B) {
			ix, _, cleanup, err := build(b.Context(), docs, c, su)
			if err != nil {
				b.Fatal(err)
			}
			defer cleanup()
			opts := core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}
			if _, err := ix.QueryDocuments(b.Context(), questions[0], &opts); err != nil { // builds the keyword index
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				o := opts
				res, err := ix.QueryDocuments(b.Context(), questions[i%len(questions)], &o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res) > 0 {
					if _, err := res[0].Render(b.Context(), &core.RenderOptions{LinePassages: su.before}); err != nil {
						b.Fatal(err)
					}
				}
				i++
			}
		})
	}
}

// goroot is the Go installation's root, from go env.
func goroot(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
