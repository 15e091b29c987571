//go:build unix

package acceptance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// The kill test re-executes this test binary as a child that writes an
// index folder in a loop — items with side-cars, or documents — kills it
// with SIGKILL at random moments, and checks the folder each time, as a
// new process would open it. FOLIO_KILLS sets the kills per workload and
// codec (make kill-test runs many).

// killChildEnv is set in the child: "workload,codec,folder,first round".
// The codec "segmented" is protobuf on the segmented layout.
const killChildEnv = "FOLIO_KILL_CHILD"

// TestMain runs the kill test's child workload when this binary is started
// as one; otherwise the tests.
func TestMain(m *testing.M) {
	if spec := os.Getenv(killChildEnv); spec != "" {
		killChild(spec)
		os.Exit(2) // killChild returns only on failure
	}
	if spec := os.Getenv(mpChildEnv); spec != "" {
		mpChild(spec)
	}
	os.Exit(m.Run())
}

func killCodec(name string) core.IndexCodec {
	if name == "protobuf" || name == "segmented" || name == "partitioned" {
		return codecpb.New()
	}
	return codecjson.New()
}

func killLayout(name string) core.Layout {
	if name == "segmented" || name == "partitioned" {
		return core.LayoutSegmented
	}
	return core.LayoutFile
}

// killOptions are the options of an index of the codec name: "partitioned"
// is the segmented layout with partitions (IndexOptions.Partitions) over
// core.PartitionMinRows rows the child loads first.
func killOptions(name string) *folio.IndexOptions {
	return &folio.IndexOptions{Codec: killCodec(name), Partitions: name == "partitioned"}
}

// killBase loads the rows a partitioned index needs, in clusters, into ix
// when it has fewer.
func killBase(ctx context.Context, ix *core.LocalIndex, rng *rand.Rand) error {
	st, err := ix.GetIndexStats(ctx)
	if err != nil || st.Items >= core.PartitionMinRows {
		return err
	}
	items := make([]core.IndexItem, core.PartitionMinRows)
	for i := range items {
		v := make([]float32, 16)
		v[i%16] = 4
		v[(i/16)%16] += 2
		for j := range v {
			v[j] += float32(0.1 * rng.NormFloat64())
		}
		items[i] = core.IndexItem{ID: fmt.Sprintf("base-%05d", i), Vector: v}
	}
	_, err = ix.BatchInsertItems(ctx, items)
	return err
}

// killChild runs a workload on folder until it is killed; it prints
// "ready" once the index is open, and "ack N" once the commit of round N
// (items) has returned. It returns only on failure.
func killChild(spec string) {
	parts := strings.Split(spec, ",")
	workload, codec, layout, dir := parts[0], killCodec(parts[1]), killLayout(parts[1]), parts[2]
	first, _ := strconv.Atoi(parts[3])
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	fail := func(err error) { fmt.Fprintln(os.Stderr, "child:", err) }
	switch workload {
	case "items":
		if parts[1] == "partitioned" && rng.IntN(2) == 0 {
			// The partitions are trained again, and stored, under the kill.
			_ = os.Remove(filepath.Join(dir, "index.pb.partitions"))
		}
		ix, err := folio.NewLocalIndex(dir, killOptions(parts[1]))
		if err == nil {
			err = ix.CreateIndex(ctx, core.CreateIndexConfig{OpenIfExists: true, Layout: layout, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}})
		}
		if err == nil && parts[1] == "partitioned" {
			err = killBase(ctx, ix, rng)
		}
		if err != nil {
			fail(err)
			return
		}
		fmt.Println("ready")
		for round := first; ; round++ {
			if err := ix.BeginUpdate(ctx); err != nil {
				fail(err)
				return
			}
			for range 10 {
				id := fmt.Sprintf("item-%03d", rng.IntN(300))
				v := make([]float32, 16)
				v[rng.IntN(16)] = 1 + rng.Float32()
				if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: id, Vector: v, Metadata: core.Metadata{"k": round, "side": strings.Repeat("x", rng.IntN(200))}}); err != nil {
					fail(err)
					return
				}
			}
			if err := ix.DeleteItems(ctx, []string{fmt.Sprintf("item-%03d", rng.IntN(300))}); err != nil {
				fail(err)
				return
			}
			if err := ix.EndUpdate(ctx); err != nil {
				fail(err)
				return
			}
			fmt.Println("ack", round)
			if layout == core.LayoutSegmented && round%15 == 0 {
				// Kills land in compactions too.
				if _, err := ix.Compact(ctx); err != nil {
					fail(err)
					return
				}
			}
		}
	case "docs":
		ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 32}), ChunkingConfig: killChunking(), IndexOptions: core.IndexOptions{Codec: codec}})
		if err == nil {
			err = ix.CreateIndex(ctx, core.CreateIndexConfig{OpenIfExists: true, Layout: layout, MetadataConfig: core.MetadataConfig{Indexed: []string{"lang"}}})
		}
		if err != nil {
			fail(err)
			return
		}
		fmt.Println("ready")
		for round := 0; ; round++ {
			var docs []core.DocumentInput
			for range 1 + rng.IntN(4) {
				docs = append(docs, core.DocumentInput{
					URI:      fmt.Sprintf("doc-%02d.md", rng.IntN(30)),
					Text:     killText(rng, round),
					Metadata: core.Metadata{"lang": "en", "topic": fmt.Sprint(round)},
				})
			}
			switch rng.IntN(4) {
			case 0:
				err = ix.DeleteDocument(ctx, docs[0].URI)
			case 1:
				_, err = ix.UpsertDocument(ctx, docs[0].URI, docs[0].Text, "", docs[0].Metadata, nil)
			default:
				_, err = ix.UpsertDocuments(ctx, docs, &core.UpsertDocumentsOptions{BatchSize: 2})
			}
			if err != nil {
				fail(err)
				return
			}
		}
	}
}

func killChunking() core.ChunkingConfig {
	return core.ChunkingConfig{ChunkSize: 24}
}

func killText(rng *rand.Rand, round int) string {
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d. ", round)
	for range 10 + rng.IntN(80) {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestKillDuringWrites kills writers of items and of documents, with both
// codecs and on the segmented layout, and checks after every kill that
// the folder opens and is consistent: the last acknowledged commit of items
// is there; every item's side-car is there; every catalogued document has
// a hash, its text and exactly its chunks, and no chunk is without its
// document. Vacuum then removes what the kill left (nothing is left after
// it), and the check holds again.
func TestKillDuringWrites(t *testing.T) {
	kills := 12
	if s := os.Getenv("FOLIO_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		kills = n
	}
	for _, workload := range []string{"items", "docs"} {
		for _, codec := range []string{"json", "protobuf", "segmented", "partitioned"} {
			if workload == "docs" && codec == "partitioned" {
				continue
			}
			t.Run(workload+"/"+codec, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(t.TempDir(), "idx")
				seed := uint64(time.Now().UnixNano())
				rng := rand.New(rand.NewPCG(seed, 1))
				var removed int
				if codec == "partitioned" {
					// The rows partitions need are there before the first
					// kill, so that every kill lands on a partitioned index.
					ix, err := folio.NewLocalIndex(dir, killOptions(codec))
					if err == nil {
						err = ix.CreateIndex(t.Context(), core.CreateIndexConfig{Layout: core.LayoutSegmented, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}})
					}
					if err == nil {
						err = killBase(t.Context(), ix, rng)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				for kill := range kills {
					acked := runKilledChild(t, fmt.Sprintf("%s,%s,%s,%d", workload, codec, dir, kill*1_000_000), time.Duration(50+rng.IntN(400))*time.Millisecond)
					if t.Failed() {
						return
					}
					removed += checkKilledFolder(t, workload, codec, dir, kill, acked)
					if t.Failed() {
						t.Logf("seed %d", seed)
						return
					}
				}
				t.Logf("%d kills, %d files vacuumed", kills, removed)
			})
		}
	}
}

// runKilledChild starts a child on spec and kills it delay after it is
// ready. It returns the last round the child acknowledged, -1 for none.
func runKilledChild(t *testing.T, spec string, delay time.Duration) int {
	t.Helper()
	child, err := testkit.StartChild(t.Context(), killChildEnv+"="+spec)
	if err != nil {
		t.Fatal(err)
	}
	lines := child.Stdout
	acked := make(chan int, 1)
	go func() {
		last := -1
		for {
			line, err := lines.ReadString('\n')
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "ack "); ok {
				last, _ = strconv.Atoi(n)
			}
			if err != nil {
				acked <- last
				return
			}
		}
	}()
	time.Sleep(delay)
	if err := child.Kill(); err != nil {
		t.Fatal(err)
	}
	last := <-acked
	if err := child.WaitKilled(); err != nil {
		t.Fatal(err)
	}
	return last
}

// checkKilledFolder opens dir as a new process would and checks it, then
// vacuums it and checks again. It returns the number of files vacuumed.
func checkKilledFolder(t *testing.T, workload, codecName string, dir string, kill, acked int) (removed int) {
	codec := killCodec(codecName)
	t.Helper()
	ctx := context.Background()
	vacuum := func(rep core.VacuumReport, err error) {
		if err != nil {
			t.Fatalf("kill %d: vacuum: %v", kill, err)
		}
		removed += len(rep.Sidecars) + len(rep.Documents) + len(rep.Segments) + rep.TempFiles
		// No temporary file of the killed write is left: its writer's
		// lock went with it.
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), storagefs.TempPrefix) {
				t.Fatalf("kill %d: %s is left after Vacuum", kill, e.Name())
			}
		}
	}
	// A second Vacuum, from the index opened anew, finds no temporary
	// file. (It may remove segments and side-cars: those the first one's
	// compaction dropped, kept a while for readers.)
	vacuumAgain := func(rep core.VacuumReport, err error) {
		if err != nil || rep.TempFiles != 0 {
			t.Fatalf("kill %d: a second Vacuum removed %d temporary files (%v)", kill, rep.TempFiles, err)
		}
	}
	for pass := range 2 {
		switch workload {
		case "items":
			ix, err := folio.NewLocalIndex(dir, killOptions(codecName))
			if err != nil {
				t.Fatal(err)
			}
			st, err := ix.GetIndexStats(ctx)
			if err != nil {
				t.Fatalf("kill %d: the index does not open: %v", kill, err)
			}
			if codecName == "partitioned" {
				// A partitioned query finds a stored vector first.
				q := make([]float32, 16)
				q[3], q[5] = 4, 2
				res, err := ix.QueryItems(ctx, q, "", 3, nil, false)
				if err != nil || len(res) == 0 || res[0].Score < 0.99 || st.Partitions == 0 {
					t.Fatalf("kill %d: partitioned query: %v (%d partitions)", kill, err, st.Partitions)
				}
			}
			// Every result loads its side-car: none dangles.
			if _, err := ix.QueryItems(ctx, make([]float32, 16), "", st.Items, nil, false); err != nil {
				t.Fatalf("kill %d, pass %d: query of all %d items: %v", kill, pass, st.Items, err)
			}
			// The last acknowledged commit is there: each round upserts
			// ten items with its number and deletes one.
			items, err := ix.ListItems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			newest := -1.0
			for _, it := range items {
				if k, ok := it.Metadata["k"].(float64); ok {
					newest = max(newest, k)
				}
			}
			if acked >= 0 && newest < float64(acked) {
				t.Fatalf("kill %d: round %d was acknowledged, the newest round stored is %v", kill, acked, newest)
			}
			if pass == 0 {
				vacuum(ix.Vacuum(ctx))
			} else {
				vacuumAgain(ix.Vacuum(ctx))
			}
		case "docs":
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 32}), ChunkingConfig: killChunking(), IndexOptions: core.IndexOptions{Codec: codec}})
			if err != nil {
				t.Fatal(err)
			}
			checkDocumentsStrictly(t, ix, codec, fmt.Sprintf("kill %d, pass %d", kill, pass))
			if pass == 0 {
				vacuum(ix.Vacuum(ctx))
			} else {
				vacuumAgain(ix.Vacuum(ctx))
			}
		}
	}
	return removed
}

// checkDocumentsStrictly: every catalogued document has a hash, its text
// and exactly the chunks of that text; no chunk is without its document;
// queries render.
func checkDocumentsStrictly(t *testing.T, ix *core.LocalDocumentIndex, codec core.IndexCodec, at string) {
	t.Helper()
	ctx := context.Background()
	st, err := ix.GetCatalogStats(ctx)
	if err != nil {
		t.Fatalf("%s: the index does not open: %v", at, err)
	}
	raw, err := os.ReadFile(filepath.Join(ix.FolderPath(), "catalog"+codec.Extension()))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := codec.DeserializeCatalog(raw)
	if err != nil {
		t.Fatal(err)
	}
	for uri := range cat.URIToID {
		if _, ok := cat.URIToHash[uri]; !ok {
			t.Fatalf("%s: %s has no hash", at, uri)
		}
	}
	docs, err := ix.ListDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != st.Documents || len(docs) != len(cat.URIToID) {
		t.Fatalf("%s: %d documents with chunks, %d catalogued (%d in the file)", at, len(docs), st.Documents, len(cat.URIToID))
	}
	cfg := killChunking().TextSplitterConfig()
	cfg.Tokenizer = ix.Tokenizer()
	split, err := core.NewTextSplitter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		text, err := d.LoadText(ctx)
		if err != nil {
			t.Fatalf("%s: %s: %v", at, d.URI(), err)
		}
		if want := len(split.Split(text)); len(d.Chunks) != want {
			t.Fatalf("%s: %s has %d chunks, its text %d", at, d.URI(), len(d.Chunks), want)
		}
	}
	items, err := ix.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		id, _ := it.Metadata["documentId"].(string)
		if _, ok, _ := ix.GetDocumentURI(ctx, id); !ok {
			t.Fatalf("%s: chunk %s of document %q, which is not in the catalog", at, it.ID, id)
		}
	}
	res, err := ix.QueryDocuments(ctx, "alpha beta", &core.DocumentQueryOptions{IsBm25: true})
	if err != nil {
		t.Fatalf("%s: query: %v", at, err)
	}
	for _, r := range res {
		if _, err := r.RenderSections(ctx, 200, 2, true); err != nil {
			t.Fatalf("%s: render %s: %v", at, r.URI(), err)
		}
	}
}
