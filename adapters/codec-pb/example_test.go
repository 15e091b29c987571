package codecpb_test

import (
	"fmt"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

func ExampleNew() {
	c := codecpb.New()
	b, err := c.SerializeIndex(core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category"}},
		Items: []core.IndexItem{
			{ID: "a", Metadata: core.Metadata{"category": "news", "year": 2024}, Vector: []float32{0.6, 0.8}, Norm: 1},
		},
	})
	if err != nil {
		panic(err)
	}
	d, err := c.DeserializeIndex(b)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Extension(), len(b), "bytes")
	fmt.Println(d.Items[0].ID, d.Items[0].Metadata["category"], d.Items[0].Metadata["year"], d.Items[0].Vector)

	// Side-car metadata is JSON text, as Vectra writes it.
	side, _ := c.SerializeMetadata(core.Metadata{"title": "Hello", "year": 2024})
	fmt.Println(string(side))
	// Output:
	// .pb 77 bytes
	// a news 2024 [0.6 0.8]
	// {"title":"Hello","year":2024}
}
