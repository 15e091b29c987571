package storagetest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// confinedStorage is core.MemoryStorage refusing, as a rooted storage does,
// every path that leaves its top level (absolute, or climbing above it with
// ".."), so the suite's self-tests can show the Confined cases raise no
// false alarm.
type confinedStorage struct{ mem *core.MemoryStorage }

var (
	_ core.FileStorage   = confinedStorage{}
	_ core.GroupWriter   = confinedStorage{}
	_ core.FolderLocker  = confinedStorage{}
	_ core.FileVersioner = confinedStorage{}
)

// confine checks ctx, then p.
func confine(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if strings.HasPrefix(p, "/") || pathutil.IsAbsolute(p) {
		return fmt.Errorf("confined: %q is absolute: %w", p, core.ErrInvalidArgument)
	}
	depth := 0
	for seg := range strings.SplitSeq(strings.ReplaceAll(p, `\`, "/"), "/") {
		switch seg {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return fmt.Errorf("confined: %q leaves the top level: %w", p, core.ErrInvalidArgument)
			}
		default:
			depth++
		}
	}
	return nil
}

func (s confinedStorage) CreateFile(ctx context.Context, p string, b []byte) error {
	if err := confine(ctx, p); err != nil {
		return err
	}
	return s.mem.CreateFile(ctx, p, b)
}

func (s confinedStorage) UpsertFile(ctx context.Context, p string, b []byte) error {
	if err := confine(ctx, p); err != nil {
		return err
	}
	return s.mem.UpsertFile(ctx, p, b)
}

func (s confinedStorage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	for _, f := range files {
		if err := confine(ctx, f.Path); err != nil {
			return err
		}
	}
	return s.mem.WriteFiles(ctx, files)
}

func (s confinedStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := confine(ctx, p); err != nil {
		return nil, err
	}
	return s.mem.ReadFile(ctx, p)
}

func (s confinedStorage) DeleteFile(ctx context.Context, p string) error {
	if err := confine(ctx, p); err != nil {
		return err
	}
	return s.mem.DeleteFile(ctx, p)
}

func (s confinedStorage) PathExists(ctx context.Context, p string) (bool, error) {
	if err := confine(ctx, p); err != nil {
		return false, err
	}
	return s.mem.PathExists(ctx, p)
}

func (s confinedStorage) CreateFolder(ctx context.Context, p string) error {
	if err := confine(ctx, p); err != nil {
		return err
	}
	return s.mem.CreateFolder(ctx, p)
}

func (s confinedStorage) DeleteFolder(ctx context.Context, p string) error {
	if err := confine(ctx, p); err != nil {
		return err
	}
	return s.mem.DeleteFolder(ctx, p)
}

func (s confinedStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	if err := confine(ctx, p); err != nil {
		return core.FileDetails{}, err
	}
	return s.mem.GetDetails(ctx, p)
}

func (s confinedStorage) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	if err := confine(ctx, p); err != nil {
		return nil, err
	}
	return s.mem.ListFiles(ctx, p, filter)
}

func (s confinedStorage) LockFolder(ctx context.Context, p string) (func(), error) {
	if err := confine(ctx, p); err != nil {
		return nil, err
	}
	return s.mem.LockFolder(ctx, p)
}

func (s confinedStorage) FileVersion(ctx context.Context, p string) (string, error) {
	if err := confine(ctx, p); err != nil {
		return "", err
	}
	return s.mem.FileVersion(ctx, p)
}
