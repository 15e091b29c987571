package chanlock

import (
	"context"
	"testing"
	"time"
)

func TestMutex(t *testing.T) {
	m := New()
	if !m.TryLock() {
		t.Fatal("TryLock of a free mutex failed")
	}
	if m.TryLock() {
		t.Fatal("TryLock of a held mutex succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := m.LockContext(ctx); err != context.DeadlineExceeded {
		t.Fatalf("LockContext of a held mutex = %v, want the deadline", err)
	}
	m.Unlock()
	if err := m.LockContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Unlock()
}
