package share

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// files is a map of files with a version per file, a Versioner and Files.
type files struct {
	mu       sync.Mutex
	data     map[string][]byte
	versions map[string]int
	failRead error
}

func newFiles() *files { return &files{data: map[string][]byte{}, versions: map[string]int{}} }

func (f *files) FileVersion(_ context.Context, p string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.data[p]; !ok {
		return "", fs.ErrNotExist
	}
	return fmt.Sprint(f.versions[p]), nil
}

func (f *files) ReadFile(_ context.Context, p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failRead != nil {
		return nil, f.failRead
	}
	b, ok := f.data[p]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (f *files) UpsertFile(_ context.Context, p string, b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data[p] = b
	f.versions[p]++
	return nil
}

func (f *files) DeleteFile(_ context.Context, p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.data, p)
	return nil
}

var quiet = slog.New(slog.DiscardHandler)

// A watch sees another writer's change of a file it noted, and only of
// those; without a versioner it sees nothing.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	f := newFiles()
	_ = f.UpsertFile(ctx, "idx/index.json", []byte("1"))
	w := NewWatch(f, time.Hour, "idx/index.json", quiet)
	w.Add("idx/catalog.json")
	if changed, err := w.Changed(ctx); err != nil || changed {
		t.Fatalf("before any note: %v, %v", changed, err)
	}
	w.Note(ctx, "idx/index.json")
	w.Set("idx/catalog.json", w.Current(ctx, "idx/catalog.json")) // missing: ""
	if changed, _ := w.Changed(ctx); changed {
		t.Fatal("changed right after noting")
	}
	_ = f.UpsertFile(ctx, "idx/index.json", []byte("2"))
	if changed, _ := w.Changed(ctx); !changed {
		t.Fatal("another writer's commit not seen")
	}
	w.Note(ctx, "idx/index.json")
	_ = f.UpsertFile(ctx, "idx/catalog.json", []byte("{}"))
	if changed, _ := w.Changed(ctx); !changed {
		t.Fatal("a catalog that appeared not seen")
	}
	w.SetUnknown()
	if changed, _ := w.Changed(ctx); !changed {
		t.Fatal("unknown versions do not force a reload")
	}
	if !w.Due() || w.Due() {
		t.Fatal("Due is not once per interval")
	}
	off := NewWatch(nil, time.Hour, "idx/index.json", quiet)
	off.Note(ctx, "idx/index.json")
	if changed, err := off.Changed(ctx); changed || err != nil || off.On() || off.Due() {
		t.Fatal("a watch without versions reports something")
	}
}

// The dropped list round-trips, splits by age, and is deleted when empty;
// an unreadable list reads as empty.
func TestDropped(t *testing.T) {
	ctx := context.Background()
	f := newFiles()
	now := time.Now()
	list := []Dropped{{Name: "a.json", At: now.Add(-time.Minute).UnixMilli()}, {Name: "b.txt", At: now.UnixMilli()}}
	if !WriteDropped(ctx, f, "idx/"+DroppedListName, list, quiet) {
		t.Fatal("a written list reports nothing listed")
	}
	got := ReadDropped(ctx, f, "idx/"+DroppedListName, quiet)
	due, kept := SplitDue(got, now, 30*time.Second)
	if len(due) != 1 || due[0] != "a.json" || len(kept) != 1 || kept[0].Name != "b.txt" {
		t.Fatalf("due %v kept %v", due, kept)
	}
	if WriteDropped(ctx, f, "idx/"+DroppedListName, nil, quiet) {
		t.Fatal("an empty list reports files listed")
	}
	if _, ok := f.data["idx/"+DroppedListName]; ok {
		t.Fatal("an empty list is not deleted")
	}
	_ = f.UpsertFile(ctx, "idx/"+DroppedListName, []byte("{not json"))
	if got := ReadDropped(ctx, f, "idx/"+DroppedListName, quiet); got != nil {
		t.Fatalf("an invalid list reads as %v", got)
	}
	f.failRead = errors.New("disk")
	if got := ReadDropped(ctx, f, "idx/"+DroppedListName, quiet); got != nil {
		t.Fatalf("an unreadable list reads as %v", got)
	}
}

type locker struct{ err error }

func (l locker) LockFolder(context.Context, string) (func(), error) { return func() {}, l.err }

// Lock takes a locker's lock, passes over a missing folder and a storage
// without locks, and fails otherwise.
func TestLock(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		storage any
		fails   bool
	}{
		"no locks":       {struct{}{}, false},
		"locked":         {locker{}, false},
		"missing folder": {locker{fmt.Errorf("lock: %w", fs.ErrNotExist)}, false},
		"failing":        {locker{errors.New("busy")}, true},
	} {
		unlock, err := Lock(ctx, tc.storage, "idx")
		if (err != nil) != tc.fails || (err == nil && unlock == nil) {
			t.Errorf("%s: unlock %v, err %v", name, unlock != nil, err)
		}
	}
}
