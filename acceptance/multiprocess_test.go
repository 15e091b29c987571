//go:build unix

package acceptance_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// The multi-process tests re-execute this test binary as children that
// write (or read) one index folder at the same time, and check that no
// commit is lost, readers only ever see whole commits, and nothing refers
// to a file another process deleted.

// mpChildEnv is set in a child: "role,codec,folder,arg".
const mpChildEnv = "FOLIO_MP_CHILD"

// mpDim is the vector length of the multi-process tests.
const mpDim = 8

// mpVector is a vector that identifies n.
func mpVector(n int) []float32 {
	v := make([]float32, mpDim)
	v[n%mpDim] = 1
	v[(n/mpDim)%mpDim] += 0.5
	v[mpDim-1] += float32(n%97) / 97
	return v
}

// mpChild runs one child role and exits: 0 when it did its work, 1 with
// the error on stderr when not.
func mpChild(spec string) {
	parts := strings.SplitN(spec, ",", 4)
	role, codec, dir, arg := parts[0], killCodec(parts[1]), parts[2], parts[3]
	if err := runMPChild(context.Background(), role, codec, dir, arg); err != nil {
		fmt.Fprintln(os.Stderr, "child:", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runMPChild(ctx context.Context, role string, codec core.IndexCodec, dir, arg string) error {
	n, _ := strconv.Atoi(arg)
	switch role {
	case "insert": // mpBatches batches of 10 items of writer n
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		for batch := range mpBatches {
			items := make([]core.IndexItem, 10)
			for i := range items {
				k := n*1000 + batch*10 + i
				items[i] = core.IndexItem{ID: fmt.Sprintf("w%d-%03d", n, batch*10+i), Vector: mpVector(k), Metadata: core.Metadata{"writer": float64(n), "k": float64(k)}}
			}
			if _, err := ix.BatchInsertItems(ctx, items); err != nil {
				return fmt.Errorf("batch %d: %w", batch, err)
			}
		}
	case "query": // queries until it has seen want items, checking every answer
		want := n
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec, FreshnessInterval: 5 * time.Millisecond})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		last, queries := 0, 0
		deadline := time.Now().Add(time.Minute)
		for last < want {
			if time.Now().After(deadline) {
				return fmt.Errorf("saw %d items after %d queries, want %d", last, queries, want)
			}
			res, err := ix.QueryItems(ctx, mpVector(1), "", want+10, nil, false)
			if err != nil {
				return fmt.Errorf("query %d: %w", queries, err)
			}
			queries++
			if len(res) < last {
				return fmt.Errorf("query %d: %d items after %d", queries, len(res), last)
			}
			perWriter := map[float64]int{}
			for _, r := range res {
				k, _ := r.Item.Metadata["k"].(float64)
				w, _ := r.Item.Metadata["writer"].(float64)
				if r.Item.ID != fmt.Sprintf("w%d-%03d", int(w), int(k)%1000) || !slices.Equal(r.Item.Vector, mpVector(int(k))) {
					return fmt.Errorf("query %d: item %q does not match its metadata %v", queries, r.Item.ID, r.Item.Metadata)
				}
				perWriter[w]++
			}
			// Each writer commits whole batches of 10.
			for w, c := range perWriter {
				if c%10 != 0 {
					return fmt.Errorf("query %d: writer %v has %d items, not whole batches", queries, w, c)
				}
			}
			last = len(res)
		}
		fmt.Println("queries", queries)
	case "replace": // replaces items r-000 … r-099 with new side-cars, one at a time
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		for i := range 100 {
			id := fmt.Sprintf("r-%03d", i)
			if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: id, Vector: mpVector(i), Metadata: core.Metadata{"writer": "replace", "version": float64(2), "note": strings.Repeat("new ", 20)}}); err != nil {
				return fmt.Errorf("replace %s: %w", id, err)
			}
		}
	case "insert-sidecars": // inserts items s-000 … s-099 with side-cars, one at a time
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		for i := range 100 {
			id := fmt.Sprintf("s-%03d", i)
			if _, err := ix.InsertItem(ctx, core.IndexItem{ID: id, Vector: mpVector(i + 500), Metadata: core.Metadata{"writer": "insert", "note": "side-car"}}); err != nil {
				return fmt.Errorf("insert %s: %w", id, err)
			}
		}
	case "documents": // upserts mpDocCalls×5 documents of writer n, 5 per call
		ix, err := mpDocumentIndex(dir, codec)
		if err != nil {
			return err
		}
		fmt.Println("ready")
		for call := range mpDocCalls {
			docs := make([]core.DocumentInput, 5)
			for i := range docs {
				d := call*5 + i
				docs[i] = core.DocumentInput{URI: fmt.Sprintf("w%d/doc-%02d.md", n, d), Text: mpDocText(n, d), Metadata: core.Metadata{"writer": float64(n)}}
			}
			if _, err := ix.UpsertDocuments(ctx, docs, &core.UpsertDocumentsOptions{BatchSize: 5}); err != nil {
				return fmt.Errorf("call %d: %w", call, err)
			}
		}
	case "hold":
		fmt.Println("ready")
		return holdChild(ctx, dir, n)
	case "churn-items", "churn-docs", "read-items", "read-docs":
		return runChurnChild(ctx, role, codec, dir, arg)
	default:
		return fmt.Errorf("unknown role %q", role)
	}
	return nil
}

// mpBatches and mpDocCalls are how many commits each writer of the
// multi-process tests makes: enough for the four writers' commits to
// interleave many times (each commit of one reloads what the others
// wrote), few enough that the tests take seconds on a busy 2-core machine
// (50 and 10 took 22 s and 45 s there, quiet, under the race detector).
const (
	mpBatches  = 20
	mpDocCalls = 4
)

func mpDocumentIndex(dir string, codec core.IndexCodec) (*core.LocalDocumentIndex, error) {
	return folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     dir,
		Embeddings:     embedhash.New(&embedhash.Options{Dimensions: 32}),
		ChunkingConfig: killChunking(),
		IndexOptions:   core.IndexOptions{Codec: codec},
	})
}

// mpDocText is writer w's document d: several chunks long, its own words.
func mpDocText(w, d int) string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Writer %d wrote document %d, sentence %d, about topic%d and word%d. ", w, d, i, d%7, i%11)
	}
	return b.String()
}

// mpProcess is a running child.
type mpProcess struct{ *testkit.Child }

// startMP starts a child in role and waits until it says it is ready.
func startMP(t testing.TB, role, codec, dir string, arg int) *mpProcess {
	t.Helper()
	return startMPArg(t, role, codec, dir, strconv.Itoa(arg))
}

// startMPArg is startMP with the child's argument as text.
func startMPArg(t testing.TB, role, codec, dir, arg string) *mpProcess {
	t.Helper()
	c, err := testkit.StartChild(t.Context(), fmt.Sprintf("%s=%s,%s,%s,%s", mpChildEnv, role, codec, dir, arg))
	if err != nil {
		t.Fatalf("%s child: %v", role, err)
	}
	return &mpProcess{c}
}

// wait waits for the child's end and fails the test if it failed; it
// returns the rest of its output.
func (p *mpProcess) wait(t *testing.T) string {
	t.Helper()
	rest, _ := p.Stdout.ReadString(0)
	if err := p.Wait(); err != nil {
		t.Error(err)
	}
	return rest
}

// createMPIndex creates an empty item index in a new folder.
func createMPIndex(t *testing.T, codec string, cfg core.CreateIndexConfig) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: killCodec(codec)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Layout = killLayout(codec)
	if err := ix.CreateIndex(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMultiProcessInserts: four processes insert 200 items each in batches
// of 10 into one folder while a fifth queries it; every item lands.
func TestMultiProcessInserts(t *testing.T) {
	for _, codec := range []string{"json", "protobuf", "segmented"} {
		t.Run(codec, func(t *testing.T) {
			dir := createMPIndex(t, codec, core.CreateIndexConfig{})
			reader := startMP(t, "query", codec, dir, 4*mpBatches*10)
			var writers []*mpProcess
			for w := range 4 {
				writers = append(writers, startMP(t, "insert", codec, dir, w))
			}
			for _, w := range writers {
				w.wait(t)
			}
			t.Logf("reader: %s", strings.TrimSpace(reader.wait(t)))
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: killCodec(codec)})
			if err != nil {
				t.Fatal(err)
			}
			items, err := ix.ListItems(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 4*mpBatches*10 {
				t.Fatalf("the folder holds %d items, want %d", len(items), 4*mpBatches*10)
			}
			seen := map[string]bool{}
			for _, it := range items {
				seen[it.ID] = true
			}
			for w := range 4 {
				for i := range mpBatches * 10 {
					if id := fmt.Sprintf("w%d-%03d", w, i); !seen[id] {
						t.Fatalf("item %s is missing", id)
					}
				}
			}
		})
	}
}

// TestMultiProcessReplaceWhileInsert: one process replaces 100 items
// (each replacement writes a new side-car and deletes the old one) while
// another inserts 100 items with side-cars: every item of both survives
// and none refers to a deleted side-car.
func TestMultiProcessReplaceWhileInsert(t *testing.T) {
	for _, codec := range []string{"json", "protobuf"} {
		t.Run(codec, func(t *testing.T) {
			dir := createMPIndex(t, codec, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"writer"}}})
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: killCodec(codec)})
			if err != nil {
				t.Fatal(err)
			}
			seed := make([]core.IndexItem, 100)
			for i := range seed {
				seed[i] = core.IndexItem{ID: fmt.Sprintf("r-%03d", i), Vector: mpVector(i), Metadata: core.Metadata{"writer": "seed", "version": 1, "note": "old"}}
			}
			if _, err := ix.BatchInsertItems(t.Context(), seed); err != nil {
				t.Fatal(err)
			}
			replacer := startMP(t, "replace", codec, dir, 0)
			inserter := startMP(t, "insert-sidecars", codec, dir, 0)
			replacer.wait(t)
			inserter.wait(t)

			fresh, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: killCodec(codec)})
			if err != nil {
				t.Fatal(err)
			}
			items, err := fresh.ListItems(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 200 {
				t.Fatalf("the folder holds %d items, want 200", len(items))
			}
			for _, it := range items {
				if it.MetadataFile == "" {
					t.Fatalf("item %s has no side-car", it.ID)
				}
				if _, err := os.Stat(filepath.Join(dir, it.MetadataFile)); err != nil {
					t.Fatalf("item %s refers to side-car %s: %v", it.ID, it.MetadataFile, err)
				}
				if strings.HasPrefix(it.ID, "r-") && it.Metadata["writer"] != "replace" {
					t.Fatalf("item %s kept its old version: %v", it.ID, it.Metadata)
				}
			}
			// Every result loads its side-car.
			res, err := fresh.QueryItems(t.Context(), mpVector(3), "", 200, core.Filter{"writer": "replace"}, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 100 {
				t.Fatalf("%d replaced items, want 100", len(res))
			}
			for _, r := range res {
				if r.Item.Metadata["version"] != float64(2) {
					t.Fatalf("item %s: side-car metadata %v, want version 2", r.Item.ID, r.Item.Metadata)
				}
			}
		})
	}
}

// TestMultiProcessDocuments: four processes upsert 20 documents each
// (mpDocCalls commits of 5) into one document index: catalog and index
// agree at the end.
func TestMultiProcessDocuments(t *testing.T) {
	for _, codec := range []string{"json", "protobuf", "segmented"} {
		t.Run(codec, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			ix, err := mpDocumentIndex(dir, killCodec(codec))
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{Layout: killLayout(codec)}); err != nil {
				t.Fatal(err)
			}
			var writers []*mpProcess
			for w := range 4 {
				writers = append(writers, startMP(t, "documents", codec, dir, w))
			}
			for _, w := range writers {
				w.wait(t)
			}
			fresh, err := mpDocumentIndex(dir, killCodec(codec))
			if err != nil {
				t.Fatal(err)
			}
			checkDocumentsStrictly(t, fresh, killCodec(codec), "after 4 writers")
			st, err := fresh.GetCatalogStats(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if st.Documents != 4*mpDocCalls*5 {
				t.Fatalf("%d documents, want %d", st.Documents, 4*mpDocCalls*5)
			}
			for w := range 4 {
				for d := range mpDocCalls * 5 {
					uri := fmt.Sprintf("w%d/doc-%02d.md", w, d)
					id, ok, err := fresh.GetDocumentID(t.Context(), uri)
					if err != nil || !ok {
						t.Fatalf("%s: not catalogued (%v)", uri, err)
					}
					text, err := os.ReadFile(filepath.Join(dir, id+".txt"))
					if err != nil || string(text) != mpDocText(w, d) {
						t.Fatalf("%s: text %q, %v", uri, text, err)
					}
				}
			}
		})
	}
}

// TestLockReleasedOnKill: a writer killed with SIGKILL while it holds the
// folder lock, 100 times: each time the next writer takes the lock at once
// and the folder opens, with the old state or the new.
func TestLockReleasedOnKill(t *testing.T) {
	kills := 100
	if testing.Short() {
		kills = 10
	}
	dir := createMPIndex(t, "json", core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}})
	storage := localStorage()
	ctx := t.Context()
	for kill := range kills {
		p := startMP(t, "hold", "json", dir, kill)
		// The child holds the lock when it says so.
		if line, err := p.Stdout.ReadString('\n'); line != "locked\n" {
			p.Kill()
			p.Cmd.Wait()
			t.Fatalf("kill %d: child: %q, %v; stderr: %s", kill, line, err, p.Stderr())
		}
		time.Sleep(time.Duration(kill%7) * time.Millisecond)
		if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		p.Cmd.Wait()
		lockCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		start := time.Now()
		unlock, err := storage.LockFolder(lockCtx, dir)
		cancel()
		if err != nil {
			t.Fatalf("kill %d: the next writer cannot take the lock: %v", kill, err)
		}
		if waited := time.Since(start); waited > time.Second {
			t.Errorf("kill %d: the next writer waited %v for the lock", kill, waited)
		}
		unlock()
		ix, err := folio.NewLocalIndex(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		items, err := ix.ListItems(ctx)
		if err != nil {
			t.Fatalf("kill %d: the folder does not open: %v", kill, err)
		}
		// Writer k commits items hold-k-0 … hold-k-9 in one batch: all or none.
		n := 0
		for _, it := range items {
			if strings.HasPrefix(it.ID, fmt.Sprintf("hold-%d-", kill)) {
				n++
			}
		}
		if n != 0 && n != 10 {
			t.Fatalf("kill %d: %d of the batch's 10 items landed", kill, n)
		}
		if _, err := ix.QueryItems(ctx, mpVector(0), "", len(items), nil, false); err != nil {
			t.Fatalf("kill %d: query: %v", kill, err)
		}
	}
}

// holdChild takes the folder lock and says "locked", then commits one
// batch (its commit takes the lock again), then takes the lock and holds
// it until it is killed, which can so come while it holds the lock
// outside a commit or inside one.
func holdChild(ctx context.Context, dir string, n int) error {
	storage := localStorage()
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Storage: storage})
	if err != nil {
		return err
	}
	if _, err := ix.GetIndexStats(ctx); err != nil {
		return err
	}
	unlock, err := storage.LockFolder(ctx, dir)
	if err != nil {
		return err
	}
	fmt.Println("locked")
	time.Sleep(time.Duration(n%5) * time.Millisecond)
	unlock()
	items := make([]core.IndexItem, 10)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprintf("hold-%d-%d", n, i), Vector: mpVector(i), Metadata: core.Metadata{"k": float64(i), "side": "car"}}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		return err
	}
	if _, err := storage.LockFolder(ctx, dir); err != nil {
		return err
	}
	time.Sleep(time.Hour)
	return errors.New("not killed")
}
