//go:build js && wasm

package storageidb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/conformance/storagetest"
	"github.com/foliovec/folio/core"
)

var caps = storagetest.Capabilities{AtomicReplace: true, Persistent: true}

var dbSeq atomic.Int64

// freshStorage returns a storage over a database of its own, deleted when
// the test ends.
func freshStorage(t testing.TB) *storageidb.IndexedDBStorage {
	t.Helper()
	name := fmt.Sprintf("folio-test-%d-%d", time.Now().UnixNano(), dbSeq.Add(1))
	s := storageidb.New(&storageidb.Options{Name: name})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Destroy(ctx); err != nil {
			t.Errorf("Destroy(%q): %v", name, err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	roots := []struct{ name, root string }{
		{"relative top", ""},
		{"relative folder", "idx/data"},
		{"absolute folder", "/srv/data"},
	}
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) {
			storagetest.Run(t, func(t testing.TB) storagetest.Harness {
				s := freshStorage(t)
				if err := s.CreateFolder(t.Context(), r.root); err != nil {
					t.Fatalf("CreateFolder(%q): %v", r.root, err)
				}
				return storagetest.Harness{
					Storage: s,
					Root:    r.root,
					Reopen: func() core.FileStorage {
						re := storageidb.New(&storageidb.Options{Name: s.Name()})
						t.Cleanup(func() { re.Close() })
						return re
					},
				}
			}, caps)
		})
	}
}
