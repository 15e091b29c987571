package folio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

func ExampleNewLocalIndex() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	// nil options: index.json on the local file system.
	ix, err := folio.NewLocalIndex(filepath.Join(tmp, "notes"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range []core.IndexItem{
		{ID: "a", Vector: []float32{1, 0}, Metadata: core.Metadata{"kind": "fruit"}},
		{ID: "b", Vector: []float32{0.6, 0.8}, Metadata: core.Metadata{"kind": "fruit"}},
		{ID: "c", Vector: []float32{0, 1}, Metadata: core.Metadata{"kind": "vegetable"}},
	} {
		if _, err := ix.InsertItem(ctx, it); err != nil { // durable when it returns
			fmt.Println(err)
			return
		}
	}
	results, err := ix.QueryItems(ctx, []float32{0, 1}, "", 2, core.Filter{"kind": "fruit"}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %.1f\n", r.Item.ID, r.Score)
	}
	_, err = os.Stat(filepath.Join(tmp, "notes", "index.json"))
	fmt.Println("index.json written:", err == nil)
	// Output:
	// b 0.8
	// a 0.0
	// index.json written: true
}

func ExampleNewLocalDocumentIndex() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	// Local files, JSON and the o200k_base tokenizer by default; embed-hash
	// is an offline, lexical embeddings model.
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath: filepath.Join(tmp, "docs"),
		Embeddings: embedhash.New(nil),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	docs := map[string]string{
		"pets.md":   "# Pets\n\nCats sleep most of the day. Dogs need a walk every morning.",
		"plants.md": "# Plants\n\nWater the ferns twice a week and keep cacti dry.",
	}
	for _, uri := range []string{"pets.md", "plants.md"} {
		if _, err := ix.UpsertDocument(ctx, uri, docs[uri], "", core.Metadata{"topic": "home"}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	results, err := ix.QueryDocuments(ctx, "when do dogs walk", &core.DocumentQueryOptions{MaxDocuments: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		sections, err := r.RenderSections(ctx, 200, 1, true)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", r.URI(), sections[0].Text)
	}
	// Output:
	// pets.md: "# Pets\n\nCats sleep most of the day. Dogs need a walk every morning."
}

func ExampleMigrateIndex() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "folio-example")
	defer os.RemoveAll(dir)

	// A one-item JSON index, as Vectra or folio.NewLocalIndex writes it.
	raw, _ := codecjson.New().SerializeIndex(core.IndexData{Version: 1, Items: []core.IndexItem{
		{ID: "a", Metadata: core.Metadata{}, Vector: []float32{1, 0}, Norm: 1},
	}})
	_ = os.WriteFile(filepath.Join(dir, "index.json"), raw, 0o644)

	if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatProtobuf}); err != nil {
		fmt.Println(err)
		return
	}
	codec, err := folio.DetectCodec(ctx, dir, nil)
	fmt.Println(codec.Extension(), err)
	// Output:
	// .pb <nil>
}

// Many documents at once: chunks of several documents share an embeddings
// call, four calls are in flight, and unchanged documents are skipped by
// their content hash on the next run.
func Example_upsertDocuments() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath: filepath.Join(tmp, "docs"),
		Embeddings: embedhash.New(nil),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{OpenIfExists: true}); err != nil {
		fmt.Println(err)
		return
	}
	docs := []core.DocumentInput{
		{URI: "a.md", Text: "Folio is a local vector index."},
		{URI: "b.md", Text: "Sourdough needs a lively starter.", Metadata: core.Metadata{"topic": "food"}},
	}
	var last core.UpsertProgress
	opts := &core.UpsertDocumentsOptions{Progress: func(p core.UpsertProgress) { last = p }}
	for range 2 {
		if _, err := ix.UpsertDocuments(ctx, docs, opts); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d of %d documents done, %d unchanged\n", last.Documents, last.Total, last.Skipped)
	}
	// Output:
	// 2 of 2 documents done, 0 unchanged
	// 2 of 2 documents done, 2 unchanged
}

// Vacuum removes what crashes leave behind: here a side-car file that no
// item refers to.
func Example_vacuum() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "idx")
	ix, err := folio.NewLocalIndex(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	orphan := "0b1c2d3e-0000-4000-8000-000000000001.json"
	if err := os.WriteFile(filepath.Join(dir, orphan), []byte("{}"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	report, err := ix.Vacuum(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Sidecars)
	// Output: [0b1c2d3e-0000-4000-8000-000000000001.json]
}
