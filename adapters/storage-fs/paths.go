package storagefs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// ErrOutsideRoot is wrapped by the errors of a rooted storage ([Options.Root])
// given a path that leaves its root: an absolute path, a path whose ".."
// segments climb above the root, or a path through a symbolic link that
// points outside it. It wraps [core.ErrInvalidArgument].
var ErrOutsideRoot = fmt.Errorf("path leaves the storage root: %w", core.ErrInvalidArgument)

// TempPrefix starts the names of the temporary files a write goes through.
// ListFiles never lists such names, and they cannot be written, so a crash
// mid-write leaves at worst an unlisted temporary file next to the target.
const TempPrefix = ".folio-tmp-"

// LockFile is the name of the file in a folder whose operating-system lock
// [LocalFileStorage.LockFolder] takes. It holds nothing, ListFiles never
// lists it, Vectra ignores it, and nothing deletes it but deleting its
// folder.
const LockFile = ".folio.lock"

// target is a resolved storage path.
type target struct {
	name    string // for the file system: cleaned, OS separators, "." for the top
	display string // for FileDetails.Path: cleaned, "/" separators, "" for the top
}

// resolve checks ctx and turns the storage path p into a target. A rooted
// storage refuses paths that leave its root; symbolic links are checked by
// os.Root as each call walks the path.
func (s *LocalFileStorage) resolve(ctx context.Context, op, p string) (target, error) {
	if err := ctx.Err(); err != nil {
		return target{}, err
	}
	local := filepath.FromSlash(p)
	if p == "" {
		local = "."
	}
	if s.root != nil && (pathutil.IsAbsolute(p) || filepath.IsAbs(local) ||
		strings.HasPrefix(p, `\`) || !filepath.IsLocal(local)) {
		return target{}, fmt.Errorf("storagefs: %s %q: %w", op, p, ErrOutsideRoot)
	}
	name := filepath.Clean(local)
	display := filepath.ToSlash(name)
	if name == "." {
		display = ""
	}
	return target{name: name, display: display}, nil
}

// resolveWritable is resolve for a path about to be created: none of its
// segments may be a temporary file's name, which ListFiles would hide.
func (s *LocalFileStorage) resolveWritable(ctx context.Context, op, p string) (target, error) {
	t, err := s.resolve(ctx, op, p)
	if err != nil {
		return target{}, err
	}
	for _, seg := range strings.Split(t.display, "/") {
		if strings.HasPrefix(seg, TempPrefix) {
			return target{}, fmt.Errorf("storagefs: %s %q: names starting %q are reserved: %w", op, p, TempPrefix, core.ErrInvalidArgument)
		}
	}
	return t, nil
}

// fail wraps err from the file system for operation op on path p, adding
// ErrOutsideRoot when os.Root refused to follow a link out of the root.
func (s *LocalFileStorage) fail(op, p string, err error) error {
	if s.escapes != nil && errors.Is(err, s.escapes) {
		return fmt.Errorf("storagefs: %s %q: %w: %w", op, p, ErrOutsideRoot, err)
	}
	return fmt.Errorf("storagefs: %s %q: %w", op, p, err)
}
