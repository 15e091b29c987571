package core

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/testtok"
)

// docVersion is a content a URI may hold.
type docVersion struct {
	text string
	md   Metadata
}

func (v docVersion) hash(t *testing.T) string {
	h, err := meta.ContentHash(v.text, "", v.md)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// crashScenario starts from docs committed by setup, then runs op, which
// may be cut short by a crash at any write or delete.
type crashScenario struct {
	name string
	// before and after are the contents each URI has before and after op
	// (absent: no document).
	before, after map[string]docVersion
	op            func(ctx context.Context, ix *LocalDocumentIndex) error
}

func (sc crashScenario) setup(t *testing.T) *docTestEnv {
	env := newCreatedDocEnv(t, nil)
	uris := make([]string, 0, len(sc.before))
	for uri := range sc.before {
		uris = append(uris, uri)
	}
	slices.Sort(uris)
	for _, uri := range uris {
		v := sc.before[uri]
		mustUpsertDoc(t, env.ix, uri, v.text, "", v.md)
	}
	return env
}

var (
	crashV1 = docVersion{"the first version of document a, long enough for chunks", Metadata{"v": 1}}
	crashV2 = docVersion{"a second version of document a, also split in chunks", Metadata{"v": 2}}
	crashB  = docVersion{"document b is new here and has its own text", nil}
	crashC  = docVersion{"document c is deleted", Metadata{"c": true}}
)

var crashScenarios = []crashScenario{
	{
		name:   "replace a document",
		before: map[string]docVersion{"a": crashV1, "c": crashC},
		after:  map[string]docVersion{"a": crashV2, "c": crashC},
		op: func(ctx context.Context, ix *LocalDocumentIndex) error {
			_, err := ix.UpsertDocument(ctx, "a", crashV2.text, "", crashV2.md, nil)
			return err
		},
	},
	{
		name:   "add a document",
		before: map[string]docVersion{"a": crashV1},
		after:  map[string]docVersion{"a": crashV1, "b": crashB},
		op: func(ctx context.Context, ix *LocalDocumentIndex) error {
			_, err := ix.UpsertDocument(ctx, "b", crashB.text, "", crashB.md, nil)
			return err
		},
	},
	{
		name:   "delete a document",
		before: map[string]docVersion{"a": crashV1, "c": crashC},
		after:  map[string]docVersion{"a": crashV1},
		op: func(ctx context.Context, ix *LocalDocumentIndex) error {
			return ix.DeleteDocument(ctx, "c")
		},
	},
	{
		name:   "a batch adding, replacing and deleting",
		before: map[string]docVersion{"a": crashV1, "c": crashC},
		after:  map[string]docVersion{"a": crashV2, "b": crashB},
		op: func(ctx context.Context, ix *LocalDocumentIndex) error {
			if err := ix.BeginUpdate(ctx); err != nil {
				return err
			}
			_, err := ix.UpsertDocument(ctx, "b", crashB.text, "", crashB.md, nil)
			if err == nil {
				_, err = ix.UpsertDocument(ctx, "a", crashV2.text, "", crashV2.md, nil)
			}
			if err == nil {
				err = ix.DeleteDocument(ctx, "c")
			}
			if err == nil {
				err = ix.EndUpdate(ctx)
			}
			if err != nil {
				ix.CancelUpdate()
			}
			return err
		},
	},
}

// checkConsistent asserts the invariant of catalog.go on a freshly opened
// index, strictly: every catalogued document has a hash and exactly the
// chunks of the version the hash names, and its text; each URI holds its
// content before or after the operation; no chunk is without its
// document; queries and listings see catalogued documents only.
func checkConsistent(t *testing.T, env *docTestEnv, ix *LocalDocumentIndex, sc crashScenario) {
	t.Helper()
	ctx := context.Background()
	cat, err := ix.catalog(ctx, "check", "")
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	split, _ := NewTextSplitter(TextSplitterConfig{ChunkSize: 16, KeepSeparators: true, Tokenizer: testtok.Char{}})
	for uri, id := range cat.URIToID {
		if cat.IDToURI[id] != uri {
			t.Fatalf("maps disagree on %q", uri)
		}
		hash, hashed := cat.URIToHash[uri]
		if !hashed {
			t.Fatalf("%q is registered without a hash", uri)
		}
		var v *docVersion
		for _, cand := range []map[string]docVersion{sc.before, sc.after} {
			if c, ok := cand[uri]; ok && c.hash(t) == hash {
				v = &c
			}
		}
		if v == nil {
			t.Fatalf("%q has a hash of neither version", uri)
		}
		text, err := ix.document(id, uri).LoadText(ctx)
		if err != nil || text != v.text {
			t.Fatalf("%q: text %q, %v; want %q", uri, text, err, v.text)
		}
		want := split.Split(v.text)
		got := docChunks(t, ix, id)
		if len(got) != len(want) {
			t.Fatalf("%q: %d chunks, want %d", uri, len(got), len(want))
		}
		for i, c := range got {
			if c.Metadata["startPos"] != float64(want[i].StartPos) || c.Metadata["endPos"] != float64(want[i].EndPos) {
				t.Fatalf("%q chunk %d: %v", uri, i, c.Metadata)
			}
		}
	}
	for uri := range cat.URIToID {
		_, was := sc.before[uri]
		_, will := sc.after[uri]
		if !was && !will {
			t.Fatalf("unknown document %q", uri)
		}
	}
	// Strict: every catalogued document was checked above to have its
	// chunks and text; no chunk is without its document.
	items, err := ix.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if id, ok := meta.DocumentID(it.Metadata); ok && cat.IDToURI[id] == "" {
			t.Fatalf("chunk %s of document %s, which is not in the catalog", it.ID, id)
		}
	}
	docs, err := ix.ListDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(cat.URIToID) {
		t.Fatalf("%d documents listed, %d in the catalog", len(docs), len(cat.URIToID))
	}
	for _, d := range docs {
		if cat.IDToURI[d.ID()] != d.URI() {
			t.Fatalf("listed %q (%s) is not in the catalog", d.URI(), d.ID())
		}
		if _, err := d.LoadText(ctx); err != nil {
			t.Fatalf("listed %q has no text: %v", d.URI(), err)
		}
	}
	res, err := ix.QueryDocuments(ctx, "document version", &DocumentQueryOptions{MaxChunks: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res {
		if cat.IDToURI[d.ID()] != d.URI() {
			t.Fatalf("query returned %q (%s), not in the catalog", d.URI(), d.ID())
		}
	}
}

// checkFinal asserts the state after op completed: exactly the after
// contents, each with a hash, and no chunk of any other document.
func checkFinal(t *testing.T, ix *LocalDocumentIndex, sc crashScenario) {
	t.Helper()
	ctx := context.Background()
	cat, err := ix.catalog(ctx, "check", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.URIToID) != len(sc.after) || cat.Count != len(sc.after) {
		t.Fatalf("catalog %+v, want %d documents", cat, len(sc.after))
	}
	for uri, v := range sc.after {
		if cat.URIToHash[uri] != v.hash(t) {
			t.Fatalf("%q: hash %q", uri, cat.URIToHash[uri])
		}
	}
	items, _ := ix.ListItems(ctx)
	for _, it := range items {
		if id, _ := meta.DocumentID(it.Metadata); cat.IDToURI[id] == "" {
			t.Fatalf("stray chunk %v", it.Metadata)
		}
	}
}

// TestCrashAtEveryWriteLeavesAConsistentPair cuts each scenario short at
// each of its writes and deletes in turn, reopens the folder as it was left
// and checks the invariant; then runs the operation again on the reopened
// index, which must complete it.
func TestCrashAtEveryWriteLeavesAConsistentPair(t *testing.T) {
	ctx := context.Background()
	for _, sc := range crashScenarios {
		t.Run(sc.name, func(t *testing.T) {
			// How many writes and deletes the operation makes.
			env := sc.setup(t)
			start := env.st.mutations
			if err := sc.op(ctx, env.ix); err != nil {
				t.Fatal(err)
			}
			checkFinal(t, env.ix, sc)
			total := env.st.mutations - start
			if total < 3 {
				t.Fatalf("only %d mutations", total)
			}
			for n := 1; n <= total; n++ {
				t.Run(fmt.Sprintf("crash at mutation %d of %d", n, total), func(t *testing.T) {
					env := sc.setup(t)
					env.st.crashAt = env.st.mutations + n
					_ = sc.op(ctx, env.ix) // may fail or, past the commit, succeed
					after := &docTestEnv{st: env.st.clone(), emb: env.emb, cfg: env.cfg}
					after.cfg.Storage = after.st
					ix := after.open(t)
					checkConsistent(t, after, ix, sc)
					if err := sc.op(ctx, ix); err != nil {
						t.Fatalf("rerun after the crash: %v", err)
					}
					// Any document write removes the chunks a crash left.
					mustUpsertDoc(t, ix, "zz", "touch", "", nil)
					if err := ix.DeleteDocument(ctx, "zz"); err != nil {
						t.Fatal(err)
					}
					checkFinal(t, ix, sc)
					checkConsistent(t, after, after.open(t), sc)
				})
			}
		})
	}
}
