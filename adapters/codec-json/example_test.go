package codecjson_test

import (
	"fmt"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/core"
)

func ExampleNew() {
	c := codecjson.New()
	b, err := c.SerializeIndex(core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category"}},
		Items: []core.IndexItem{{
			ID:           "item-1",
			Metadata:     core.Metadata{"category": "news", "year": 2024},
			Vector:       []float32{0.6, 0.8},
			Norm:         1,
			MetadataFile: "00000001-0000-4000-8000-000000000001.json",
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Extension())
	fmt.Println(string(b))

	d, err := c.DeserializeIndex(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Items[0].ID, d.Items[0].Vector, d.Items[0].Metadata["year"])
	// Output:
	// .json
	// {"version":1,"metadata_config":{"indexed":["category"]},"items":[{"id":"item-1","metadata":{"category":"news","year":2024},"vector":[0.6,0.8],"norm":1,"metadataFile":"00000001-0000-4000-8000-000000000001.json"}]}
	// item-1 [0.6 0.8] 2024
}
