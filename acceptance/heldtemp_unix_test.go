//go:build unix

package acceptance_test

import (
	"os"
	"syscall"
	"testing"
)

// holdAsAWriter holds path as a write in progress holds its temporary
// file: an exclusive flock(2), released when the test ends.
func holdAsAWriter(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
}
