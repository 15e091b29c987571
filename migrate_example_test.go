package folio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/core"
)

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
