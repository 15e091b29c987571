package storagetest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
	"github.com/foliovec/folio/core"
)

// A storage that ignores ListFiles' filter, as Vectra's LocalFileStorage
// does, breaks the rules about filters; Check names each.
func ExampleCheck() {
	newHarness := func(t testing.TB) storagetest.Harness {
		return storagetest.Harness{Storage: &filterIgnoringStorage{core.NewMemoryStorage()}}
	}
	err := storagetest.Check(context.Background(), newHarness, storagetest.Capabilities{AtomicReplace: true})
	seen := map[string]bool{}
	for _, v := range err.(interface{ Unwrap() []error }).Unwrap() {
		rule, _, _ := strings.Cut(strings.TrimPrefix(v.Error(), "storagetest: "), ": ")
		if !seen[rule] {
			seen[rule] = true
			fmt.Println(rule)
		}
	}
	// Output:
	// ListFiles honours the files, folders and all filters
	// ListFiles with an unknown filter fails with core.ErrInvalidArgument
	// ListFiles of an empty folder lists nothing
}

type filterIgnoringStorage struct{ *core.MemoryStorage }

func (s *filterIgnoringStorage) ListFiles(ctx context.Context, p string, _ core.ListFilesFilter) ([]core.FileDetails, error) {
	return s.MemoryStorage.ListFiles(ctx, p, core.ListAll)
}
