package storagefs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

func ExampleNew() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := storagefs.New(nil) // paths as the operating system reads them
	if err != nil {
		log.Fatal(err)
	}
	index := filepath.ToSlash(filepath.Join(dir, "news", "index.json"))
	if err := s.CreateFolder(ctx, filepath.ToSlash(filepath.Join(dir, "news"))); err != nil {
		log.Fatal(err)
	}
	if err := s.UpsertFile(ctx, index, []byte(`{"version":1}`)); err != nil { // atomic and durable
		log.Fatal(err)
	}
	content, _ := s.ReadFile(ctx, index)
	fmt.Println(string(content))
	d, _ := s.GetDetails(ctx, index)
	fmt.Println(d.Name, d.FileType)
	// Output:
	// {"version":1}
	// index.json json
}

func ExampleNew_rooted() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := storagefs.New(&storagefs.Options{Root: dir}) // every path stays inside dir
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	_ = s.CreateFolder(ctx, "indexes/news")
	_ = s.UpsertFile(ctx, "indexes/news/index.json", []byte(`{}`))
	list, _ := s.ListFiles(ctx, "indexes", core.ListAll)
	fmt.Println(list[0].Path, list[0].IsFolder)

	err = s.UpsertFile(ctx, "../escape.json", []byte(`{}`))
	fmt.Println(errors.Is(err, storagefs.ErrOutsideRoot), errors.Is(err, core.ErrInvalidArgument))
	// Output:
	// indexes/news true
	// true true
}
