package storagemem_test

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/core"
)

func ExampleNew() {
	ctx := context.Background()
	s := storagemem.New()
	_ = s.CreateFolder(ctx, "indexes/news") // creates "indexes" too
	_ = s.UpsertFile(ctx, "indexes/news/index.json", []byte(`{"version":1}`))

	content, _ := s.ReadFile(ctx, "indexes//news/./index.json")
	fmt.Println(string(content))
	list, _ := s.ListFiles(ctx, "indexes", core.ListAll)
	for _, d := range list {
		fmt.Println(d.Path, d.FileType)
	}
	_ = s.DeleteFolder(ctx, "indexes") // recursive
	exists, _ := s.PathExists(ctx, "indexes/news/index.json")
	fmt.Println(exists)
	// Output:
	// {"version":1}
	// indexes/news folder
	// false
}
