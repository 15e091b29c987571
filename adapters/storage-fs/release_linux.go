package storagefs

import (
	"syscall"

	"github.com/foliovec/folio/core"
)

var _ core.PageReleaser = (*mapping)(nil)

// ReleasePages implements [core.PageReleaser]: madvise(2) MADV_DONTNEED
// drops the pages of the mapping from the process's memory. The mapping
// is shared and read-only, so the next read faults them in again from the
// file (or its page cache), unchanged.
// After Close it does nothing: the addresses may belong to another
// mapping by then.
func (m *mapping) ReleasePages() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || len(m.b) == 0 {
		return nil
	}
	return syscall.Madvise(m.b, syscall.MADV_DONTNEED)
}
