package storagemem

import "github.com/foliovec/folio/core"

// VirtualFileStorage keeps files and folders in memory: it is
// [core.MemoryStorage], under the name Vectra gives it. Create one with
// [New]; the zero value is not ready for use.
type VirtualFileStorage = core.MemoryStorage

// New returns an empty storage holding only the root folders "" and "/".
func New() *VirtualFileStorage { return core.NewMemoryStorage() }
