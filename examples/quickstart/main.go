package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// topics are the categories of the generated notes, with words to write
// them from.
var topics = []struct {
	category string
	subjects []string
	actions  []string
}{
	{"cooking", []string{"fresh pasta", "tomato sauce", "sourdough bread", "green curry", "lemon tart"}, []string{"simmer slowly", "bake until golden", "season with salt", "serve warm"}},
	{"travel", []string{"mountain trail", "night train", "old harbour", "desert road", "island ferry"}, []string{"at sunrise", "with a light pack", "off season", "on a budget"}},
	{"science", []string{"neutron star", "cell membrane", "ocean current", "quantum sensor", "glacier core"}, []string{"measured in the lab", "observed for years", "modelled on a laptop", "sampled at depth"}},
	{"sports", []string{"marathon pace", "tennis serve", "cycling climb", "swim relay", "chess opening"}, []string{"trained every morning", "won in the final", "lost on penalties", "improved by data"}},
	{"tech", []string{"vector database", "cosine similarity", "metadata filter", "keyword search", "embedding model"}, []string{"runs in memory", "scales to a million items", "ships as one binary", "answers in milliseconds"}},
}

func main() {
	dir := flag.String("dir", "", "index folder (default: a new temporary folder, removed at exit)")
	n := flag.Int("n", 300, "items to insert")
	flag.Parse()
	if err := run(*dir, *n); err != nil {
		log.Fatal(err)
	}
}

func run(dir string, n int) error {
	ctx := context.Background()
	if dir == "" {
		tmp, err := os.MkdirTemp("", "folio-quickstart-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp + "/index"
	}
	model := embedhash.New(&embedhash.Options{Dimensions: 256})

	ix, err := folio.NewLocalIndex(dir, nil) // local files, index.json
	if err != nil {
		return err
	}
	cfg := core.CreateIndexConfig{
		DeleteIfExists: true,
		// Indexed keys stay in index.json and can be filtered on; the
		// rest (the text) goes to a side-car file per item.
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}},
	}
	if err := ix.CreateIndex(ctx, cfg); err != nil {
		return err
	}

	texts := make([]string, n)
	for i := range texts {
		t := topics[i%len(topics)]
		texts[i] = fmt.Sprintf("%s %s (note %d)", t.subjects[(i/len(topics))%len(t.subjects)], t.actions[(i/7)%len(t.actions)], i)
	}
	vecs, err := embed(ctx, model, texts)
	if err != nil {
		return err
	}
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{
			ID:     fmt.Sprintf("note-%03d", i),
			Vector: vecs[i],
			Metadata: core.Metadata{
				"category": topics[i%len(topics)].category,
				"year":     2015 + i%10,
				"text":     texts[i],
			},
		}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil { // one commit, all or nothing
		return err
	}
	stats, err := ix.GetIndexStats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("Created %s with %d items (indexed keys %v)\n", dir, stats.Items, stats.MetadataConfig.Indexed)

	queries := []struct {
		text   string
		filter core.Filter
	}{
		{"fresh pasta with tomato sauce", nil},
		{"vector database keyword search", nil},
		{"mountain trail at sunrise", core.Filter{"category": "travel"}},
		{"trained every morning", core.Filter{"category": core.Filter{"$in": []any{"sports", "science"}}, "year": core.Filter{"$gte": 2020}}},
	}
	for _, q := range queries {
		vec, err := embed(ctx, model, []string{q.text})
		if err != nil {
			return err
		}
		results, err := ix.QueryItems(ctx, vec[0], q.text, 3, q.filter, false)
		if err != nil {
			return err
		}
		fmt.Printf("\nquery %q", q.text)
		if q.filter != nil {
			fmt.Printf(" filter %v", q.filter)
		}
		fmt.Println()
		for _, r := range results {
			md := r.Item.Metadata // full metadata, read from the side-car
			fmt.Printf("  %.3f  %s  %-8v %v  %s\n", r.Score, r.Item.ID, md["category"], md["year"], md["text"])
		}
	}
	return nil
}

func embed(ctx context.Context, model *embedhash.HashEmbeddings, texts []string) ([][]float32, error) {
	res, err := model.CreateEmbeddings(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed %q: %w", strings.Join(texts[:min(2, len(texts))], ", "), err)
	}
	return res.Output, nil
}
