package share

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"time"
)

// DroppedListName is the folder's list of dropped files: files a commit
// stopped naming, kept a while for readers still on an older state (a file
// of Folio's own, which Vectra ignores).
const DroppedListName = ".folio-dropped.json"

// Dropped is an entry of the dropped-files list.
type Dropped struct {
	Name string `json:"name"`
	// At is when the commit that stopped naming the file was written, in
	// Unix milliseconds.
	At int64 `json:"at"`
}

// Files is the part of core.FileStorage the list needs.
type Files interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	UpsertFile(ctx context.Context, path string, content []byte) error
	DeleteFile(ctx context.Context, path string) error
}

// ReadDropped reads the list at path; a missing or unreadable list is
// empty (an unreadable one is logged: its files are left for Vacuum).
func ReadDropped(ctx context.Context, files Files, path string, log *slog.Logger) []Dropped {
	raw, err := files.ReadFile(ctx, path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("read the list of dropped files", "path", path, "err", err)
		}
		return nil
	}
	var list struct {
		Files []Dropped `json:"files"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		log.Warn("the list of dropped files is not valid; its files are left for Vacuum", "path", path, "err", err)
		return nil
	}
	return list.Files
}

// WriteDropped replaces the list at path with list (deletes it when empty)
// and reports whether files are listed: false only when the list is empty
// and gone. A failure is logged; it reports true, so the next commit tries
// again.
func WriteDropped(ctx context.Context, files Files, path string, list []Dropped, log *slog.Logger) bool {
	if len(list) == 0 {
		if err := files.DeleteFile(ctx, path); err != nil {
			log.Warn("remove the list of dropped files", "path", path, "err", err)
		}
		return false
	}
	raw, err := json.Marshal(struct {
		Files []Dropped `json:"files"`
	}{list})
	if err == nil {
		err = files.UpsertFile(ctx, path, raw)
	}
	if err != nil {
		log.Warn("write the list of dropped files; its files are left for Vacuum", "path", path, "err", err)
	}
	return true
}

// SplitDue splits list into the names listed at least retain before now
// and the entries still kept.
func SplitDue(list []Dropped, now time.Time, retain time.Duration) (due []string, kept []Dropped) {
	for _, e := range list {
		if now.Sub(time.UnixMilli(e.At)) >= retain {
			due = append(due, e.Name)
		} else {
			kept = append(kept, e)
		}
	}
	return due, kept
}
