package acceptance_test

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

var docsFolders = []struct {
	name  string
	codec core.IndexCodec
}{
	{"docs-json", codecjson.New()},
	{"docs-protobuf", codecpb.New()},
}

// Vectra's document folders open in Folio with embed-hash at 32 dimensions:
// the catalog, the catalog stats and every document's text, metadata and
// token length are what Vectra reads (dumps/<folder>.json), but for the
// metadata fix of protobuf folders.
func TestDocsVectraFoldersReadAsVectraReadsThem(t *testing.T) {
	ctx := context.Background()
	jsonDump := testkit.ReadDump(t, "docs-json")
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			dump := testkit.ReadDump(t, f.name)
			if len(dump.Documents) != 5 {
				t.Fatalf("dump has %d documents", len(dump.Documents))
			}
			ix, _, _ := docsOpenFixture(t, f.name, f.codec)

			st, err := ix.GetCatalogStats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ds := dump.CatalogStats
			if st.Version != ds.Version || st.Documents != ds.Documents || st.Chunks != ds.Chunks || !slices.Equal(st.MetadataConfig.Indexed, ds.MetadataConfig.Indexed) {
				t.Fatalf("catalog stats %+v, Vectra's %+v", st, ds)
			}
			for uri, id := range dump.Catalog.URIToID {
				if got, ok, err := ix.GetDocumentID(ctx, uri); got != id || !ok || err != nil {
					t.Fatalf("GetDocumentID(%q) = %q, %v, %v; want %q", uri, got, ok, err, id)
				}
				if got, ok, err := ix.GetDocumentURI(ctx, id); got != uri || !ok || err != nil {
					t.Fatalf("GetDocumentURI(%q) = %q, %v, %v; want %q", id, got, ok, err, uri)
				}
			}

			listed, err := ix.ListDocuments(ctx)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*core.LocalDocumentResult{}
			for _, d := range listed {
				byID[d.ID()] = d
			}
			if len(listed) != len(dump.Documents) {
				t.Fatalf("%d documents listed, Vectra reads %d", len(listed), len(dump.Documents))
			}
			for i, want := range dump.Documents {
				d := byID[want.ID]
				if d == nil {
					t.Fatalf("document %s (%s) not listed", want.ID, want.URI)
				}
				if d.URI() != want.URI || len(d.Chunks) != want.ChunkCount || d.Score != 1 {
					t.Fatalf("%s: uri %q, %d chunks, score %v; want %q, %d", want.ID, d.URI(), len(d.Chunks), d.Score, want.URI, want.ChunkCount)
				}
				text, err := d.LoadText(ctx)
				if err != nil || text != want.Text {
					t.Fatalf("%s: text differs (%v)", want.URI, err)
				}
				n, err := d.GetLength(ctx)
				if err != nil || n != want.TokenLength {
					t.Fatalf("%s: length %d, %v; Vectra's %d", want.URI, n, err, want.TokenLength)
				}
				// Vectra looks for <id>.json whatever the codec, so it sees no
				// metadata in a protobuf folder; Folio reads <id>.pb (a fix):
				// the metadata is the JSON folder's.
				wantMeta := jsonDump.Documents[i]
				has, err := d.HasMetadata(ctx)
				if err != nil || has != wantMeta.HasMetadata {
					t.Fatalf("%s: HasMetadata = %v, %v; want %v", want.URI, has, err, wantMeta.HasMetadata)
				}
				md, err := d.LoadMetadata(ctx)
				switch {
				case wantMeta.HasMetadata && (err != nil || !reflect.DeepEqual(md, wantMeta.Metadata)):
					t.Fatalf("%s: metadata %v, %v; want %v", want.URI, md, err, wantMeta.Metadata)
				case !wantMeta.HasMetadata && !errors.Is(err, fs.ErrNotExist):
					t.Fatalf("%s: LoadMetadata without a file: %v", want.URI, err)
				}
			}
		})
	}
}

// Upserting a fixture document unchanged through Folio is recognised by
// the content hash Vectra stored: no embeddings call, the same id.
func TestDocsUnchangedVectraDocumentIsSkipped(t *testing.T) {
	ctx := context.Background()
	inputs := testkit.ReadInputs(t)
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			ix, emb, dir := docsOpenFixture(t, f.name, f.codec)
			before := docsFileNames(t, dir)
			for _, d := range inputs.Documents.List {
				id, _, _ := ix.GetDocumentID(ctx, d.URI)
				doc, err := ix.UpsertDocument(ctx, d.URI, d.Text, d.DocType, d.Metadata, nil)
				if err != nil {
					t.Fatal(err)
				}
				if doc.ID() != id {
					t.Fatalf("%s: id %s, was %s", d.URI, doc.ID(), id)
				}
			}
			if n := emb.Calls(); n != 0 {
				t.Fatalf("%d embeddings calls for unchanged documents", n)
			}
			if after := docsFileNames(t, dir); !slices.Equal(after, before) {
				t.Fatalf("files changed: %v → %v", before, after)
			}
		})
	}
}

// docsGolden is testdata/documents/golden.json, written by Vectra 0.15's
// own LocalDocumentIndex on the fixtures (testdata/documents/generate.js).
type docsGolden struct {
	Folders []struct {
		Folder  string `json:"folder"`
		Queries []struct {
			Query     string `json:"query"`
			Documents []struct {
				ID     string  `json:"id"`
				URI    string  `json:"uri"`
				Score  float64 `json:"score"`
				Chunks []struct {
					ID     string  `json:"id"`
					Score  float64 `json:"score"`
					IsBm25 bool    `json:"isBm25"`
				} `json:"chunks"`
				Renders []struct {
					Kind        string `json:"kind"`
					MaxTokens   int    `json:"maxTokens"`
					MaxSections int    `json:"maxSections"`
					Overlapping bool   `json:"overlapping"`
					Sections    []struct {
						Text       string  `json:"text"`
						TokenCount int     `json:"tokenCount"`
						Score      float64 `json:"score"`
						IsBm25     bool    `json:"isBm25"`
						Fallback   bool    `json:"fallback"`
					} `json:"sections"`
				} `json:"renders"`
			} `json:"documents"`
		} `json:"queries"`
		Unchanged struct {
			URI             string `json:"uri"`
			EmbeddingsCalls int    `json:"embeddingsCalls"`
		} `json:"unchanged"`
		Changed struct {
			URI             string        `json:"uri"`
			Text            string        `json:"text"`
			Metadata        core.Metadata `json:"metadata"`
			EmbeddingsCalls int           `json:"embeddingsCalls"`
			Chunks          []struct {
				StartPos int       `json:"startPos"`
				EndPos   int       `json:"endPos"`
				Vector   []float64 `json:"vector"`
			} `json:"chunks"`
			Stats struct {
				Documents int `json:"documents"`
				Chunks    int `json:"chunks"`
			} `json:"stats"`
		} `json:"changed"`
	} `json:"folders"`
}

func docsLoadGolden(t *testing.T) docsGolden {
	var g docsGolden
	docsReadJSON(t, filepath.Join(testkit.FixtureDir(t), "..", "documents", "golden.json"), &g)
	if len(g.Folders) != len(docsFolders) {
		t.Fatalf("golden has %d folders", len(g.Folders))
	}
	return g
}

func docsNear(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }

// The document queries of inputs.json, with and without BM25 and filters,
// find what Vectra finds. Folio scores in float32, so scores agree to 1e-6.
// Where equal scores straddle the maxChunks cut (here the many chunks
// orthogonal to the query, scoring 0), Vectra keeps the ones its heap
// happens to hold and Folio the first in storage order (LocalIndex's
// documented tie rule): so every chunk scoring above the cut must be the
// same, in the same documents, the number of chunks at the cut must be the
// same, and a document without chunks at the cut must score as in Vectra.
// Keyword (BM25) chunks come from Folio's own BM25, not wink-nlp's, whose
// scores differ: they must be the same chunks, in the same documents and
// order, after the vector chunks.
func TestDocsQueriesMatchVectra(t *testing.T) {
	ctx := context.Background()
	golden := docsLoadGolden(t)
	inputs := testkit.ReadInputs(t)
	type chunk struct {
		id    string
		score float64
	}
	byScoreThenID := func(a, b chunk) int {
		if !docsNear(a.score, b.score) {
			return cmp.Compare(b.score, a.score)
		}
		return strings.Compare(a.id, b.id)
	}
	for fi, f := range docsFolders {
		gf := golden.Folders[fi]
		if gf.Folder != f.name {
			t.Fatalf("golden folder %q, want %q", gf.Folder, f.name)
		}
		t.Run(f.name, func(t *testing.T) {
			ix, _, _ := docsOpenFixture(t, f.name, f.codec)
			for qi, q := range inputs.DocumentQueries {
				gq := gf.Queries[qi]
				t.Run(q.Query, func(t *testing.T) {
					docs, err := ix.QueryDocuments(ctx, q.Query, q.QueryOptions())
					if err != nil {
						t.Fatal(err)
					}
					// Folio's vector and keyword chunks per document.
					got := map[string][]chunk{}
					keyword := map[string][]string{}
					for _, d := range docs {
						if !docsNear(d.Score, docsMean(d.Chunks)) {
							t.Fatalf("%s: score %v is not its chunks' mean", d.URI(), d.Score)
						}
						seenKeyword := false
						for _, c := range d.Chunks {
							if c.Item.Metadata["isBm25"] == true {
								keyword[d.ID()] = append(keyword[d.ID()], c.Item.ID)
								seenKeyword = true
								continue
							}
							if seenKeyword {
								t.Fatalf("%s: a vector chunk after a keyword chunk", d.URI())
							}
							got[d.ID()] = append(got[d.ID()], chunk{c.Item.ID, c.Score})
						}
					}
					// Vectra's, and the score at its cut.
					want := map[string][]chunk{}
					wantKeyword := map[string][]string{}
					cut := math.Inf(1)
					total := 0
					for _, d := range gq.Documents {
						for _, c := range d.Chunks {
							if c.IsBm25 {
								wantKeyword[d.ID] = append(wantKeyword[d.ID], c.ID)
							} else {
								want[d.ID] = append(want[d.ID], chunk{c.ID, c.Score})
								cut = min(cut, c.Score)
								total++
							}
						}
					}
					atCut := func(cs []chunk) (above []chunk, n int) {
						for _, c := range cs {
							if docsNear(c.score, cut) {
								n++
							} else {
								above = append(above, c)
							}
						}
						slices.SortFunc(above, byScoreThenID)
						return above, n
					}
					gotTotal, gotAtCut, wantAtCut := 0, 0, 0
					for id := range mergeKeys(got, want) {
						ga, gn := atCut(got[id])
						wa, wn := atCut(want[id])
						gotTotal += len(got[id])
						gotAtCut += gn
						wantAtCut += wn
						if len(ga) != len(wa) {
							t.Fatalf("%s: %d chunks above the cut, Vectra %d", id, len(ga), len(wa))
						}
						for i := range ga {
							if ga[i].id != wa[i].id || !docsNear(ga[i].score, wa[i].score) {
								t.Fatalf("%s chunk %d: %v, Vectra %v", id, i, ga[i], wa[i])
							}
						}
					}
					if gotTotal != total || gotAtCut != wantAtCut {
						t.Fatalf("%d vector chunks (%d at the cut %v), Vectra %d (%d)", gotTotal, gotAtCut, cut, total, wantAtCut)
					}
					if !q.Options.IsBm25 {
						wantDocs := map[string]float64{}
						for _, d := range gq.Documents {
							wantDocs[d.ID] = d.Score
						}
						if len(docs) != len(gq.Documents) {
							t.Fatalf("%d documents, Vectra %d", len(docs), len(gq.Documents))
						}
						for _, d := range docs {
							score, ok := wantDocs[d.ID()]
							if !ok {
								t.Fatalf("%s not found by Vectra", d.URI())
							}
							if _, n := atCut(got[d.ID()]); n == 0 && !docsNear(d.Score, score) {
								t.Fatalf("%s: score %v, Vectra %v", d.URI(), d.Score, score)
							}
						}
					}
					if !reflect.DeepEqual(keyword, wantKeyword) {
						t.Fatalf("keyword chunks %v, Vectra %v", keyword, wantKeyword)
					}
					if q.Options.IsBm25 && len(keyword) == 0 {
						t.Fatal("no keyword chunks")
					}
				})
			}
		})
	}
}

func docsMean(cs []core.QueryResult) float64 {
	if len(cs) == 0 {
		return 0
	}
	sum := 0.0
	for _, c := range cs {
		sum += c.Score
	}
	return sum / float64(len(cs))
}

func mergeKeys[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// Rendering the chunks Vectra's queries returned, in Vectra's order and
// with Vectra's scores, gives Vectra's sections with the o200k_base
// tokenizer (but for the fallback fix: a fallback section counts its real
// tokens).
func TestDocsRenderMatchesVectra(t *testing.T) {
	ctx := context.Background()
	golden := docsLoadGolden(t)
	for fi, f := range docsFolders {
		gf := golden.Folders[fi]
		t.Run(f.name, func(t *testing.T) {
			ix, _, _ := docsOpenFixture(t, f.name, f.codec)
			listed, err := ix.ListDocuments(ctx)
			if err != nil {
				t.Fatal(err)
			}
			docs := map[string]*core.LocalDocumentResult{}
			for _, d := range listed {
				docs[d.ID()] = d
			}
			checked := 0
			for _, gq := range gf.Queries {
				for _, gd := range gq.Documents {
					base := docs[gd.ID]
					if base == nil {
						t.Fatalf("document %s not listed", gd.ID)
					}
					chunks := make([]core.QueryResult, len(gd.Chunks))
					for i, c := range gd.Chunks {
						item, ok, err := ix.GetItem(ctx, c.ID)
						if err != nil || !ok {
							t.Fatalf("chunk %s: %v, %v", c.ID, ok, err)
						}
						md := core.Metadata{}
						for k, v := range item.Metadata {
							md[k] = v
						}
						if c.IsBm25 {
							md["isBm25"] = true
						}
						item.Metadata = md
						chunks[i] = core.QueryResult{Item: item, Score: c.Score}
					}
					r := *base
					r.Chunks = chunks
					for _, render := range gd.Renders {
						var got []core.DocumentTextSection
						if render.Kind == "all" {
							got, err = r.RenderAllSections(ctx, render.MaxTokens)
						} else {
							got, err = r.RenderSections(ctx, render.MaxTokens, render.MaxSections, render.Overlapping)
						}
						if err != nil {
							t.Fatal(err)
						}
						if len(got) != len(render.Sections) {
							t.Fatalf("%q %s %+v: %d sections, Vectra %d", gq.Query, gd.URI, render, len(got), len(render.Sections))
						}
						for i, want := range render.Sections {
							wantCount := want.TokenCount
							if want.Fallback {
								wantCount = len(ix.Tokenizer().Encode(want.Text))
							}
							g := got[i]
							if g.Text != want.Text || g.TokenCount != wantCount || g.Score != want.Score || g.IsBm25 != want.IsBm25 {
								t.Fatalf("%q %s %s(%d, %d, %v) section %d:\n got %+v\nwant %+v",
									gq.Query, gd.URI, render.Kind, render.MaxTokens, render.MaxSections, render.Overlapping, i, g, want)
							}
						}
						checked++
					}
				}
			}
			if checked < 50 {
				t.Fatalf("only %d renders checked", checked)
			}
		})
	}
}

// A changed fixture document replaces its chunks: the same chunks and
// vectors as Vectra's, one embeddings call, the old chunks and files gone.
// Its id changes (Folio writes a new version under a new id; Vectra reuses
// the old one).
func TestDocsChangedVectraDocumentIsReplaced(t *testing.T) {
	ctx := context.Background()
	golden := docsLoadGolden(t)
	for fi, f := range docsFolders {
		want := golden.Folders[fi].Changed
		t.Run(f.name, func(t *testing.T) {
			ix, emb, dir := docsOpenFixture(t, f.name, f.codec)
			oldID, _, _ := ix.GetDocumentID(ctx, want.URI)
			doc, err := ix.UpsertDocument(ctx, want.URI, want.Text, "", want.Metadata, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := emb.Calls(); n != int64(want.EmbeddingsCalls) {
				t.Fatalf("%d embeddings calls, Vectra %d", n, want.EmbeddingsCalls)
			}
			if doc.ID() == oldID {
				t.Fatal("the new version kept the old id")
			}
			items, err := ix.ListItems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var chunks []core.IndexItem
			for _, it := range items {
				switch it.Metadata["documentId"] {
				case oldID:
					t.Fatalf("old chunk %s left", it.ID)
				case doc.ID():
					chunks = append(chunks, it)
				}
			}
			if len(chunks) != len(want.Chunks) {
				t.Fatalf("%d chunks, Vectra %d", len(chunks), len(want.Chunks))
			}
			for i, c := range chunks {
				w := want.Chunks[i]
				if c.Metadata["startPos"] != float64(w.StartPos) || c.Metadata["endPos"] != float64(w.EndPos) {
					t.Fatalf("chunk %d at %v-%v, Vectra %d-%d", i, c.Metadata["startPos"], c.Metadata["endPos"], w.StartPos, w.EndPos)
				}
				for j, x := range w.Vector {
					if c.Vector[j] != float32(x) {
						t.Fatalf("chunk %d vector[%d] = %v, Vectra %v", i, j, c.Vector[j], x)
					}
				}
				if c.Metadata["year"] != 2025.0 || c.Metadata["topic"] != "guide" {
					t.Fatalf("chunk %d metadata %v", i, c.Metadata)
				}
			}
			st, _ := ix.GetCatalogStats(ctx)
			if st.Documents != want.Stats.Documents || st.Chunks != want.Stats.Chunks {
				t.Fatalf("stats %+v, Vectra %+v", st, want.Stats)
			}
			// The old version's files are dropped: kept for readers still on
			// the previous state, listed in .folio-dropped.json, and deleted
			// once RetainDropped has passed.
			dropped, _ := os.ReadFile(filepath.Join(dir, ".folio-dropped.json"))
			files := docsFileNames(t, dir)
			for _, name := range files {
				if strings.HasPrefix(name, oldID) && !strings.Contains(string(dropped), `"`+name+`"`) {
					t.Fatalf("old file %s left, not listed as dropped", name)
				}
			}
			ext := f.codec.Extension()
			for _, name := range []string{doc.ID() + ".txt", doc.ID() + ext} {
				if !slices.Contains(files, name) {
					t.Fatalf("%s missing from %v", name, files)
				}
			}
			// Unchanged now: skipped.
			if _, err := ix.UpsertDocument(ctx, want.URI, want.Text, "", want.Metadata, nil); err != nil {
				t.Fatal(err)
			}
			if n := emb.Calls(); n != int64(want.EmbeddingsCalls) {
				t.Fatal("an unchanged document was embedded again")
			}
		})
	}
}
