package hub

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/foliovec/folio/core"
)

// DefaultRevision is the revision of a model named without one.
const DefaultRevision = "main"

// Ref names a model on the hub.
type Ref struct {
	// ID is "owner/name" or a bare "name".
	ID string
	// Revision is a branch, tag or commit; "" means DefaultRevision.
	Revision string
}

// part is one segment of a model id or a revision, as the hub allows them:
// letters, digits, '.', '_' and '-', not starting with '.' or '-'.
var part = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,95}$`)

// ParseRef reads "owner/name", "name", or either with "@revision". A ref
// with "..", a path separator in the wrong place, or characters the hub
// does not allow is an error wrapping core.ErrInvalidArgument.
func ParseRef(s string) (Ref, error) {
	id, rev, hasRev := strings.Cut(s, "@")
	if hasRev && !part.MatchString(rev) || strings.Contains(rev, "..") {
		return Ref{}, fmt.Errorf("hub: model %q: revision %q is not a branch, tag or commit name: %w", s, rev, core.ErrInvalidArgument)
	}
	segs := strings.Split(id, "/")
	if len(segs) > 2 {
		return Ref{}, fmt.Errorf("hub: model %q: want owner/name: %w", s, core.ErrInvalidArgument)
	}
	for _, seg := range segs {
		if !part.MatchString(seg) || strings.Contains(seg, "..") {
			return Ref{}, fmt.Errorf("hub: model %q: %q is not an owner or model name (letters, digits, '.', '_', '-'): %w", s, seg, core.ErrInvalidArgument)
		}
	}
	return Ref{ID: id, Revision: rev}, nil
}

// IsRef reports whether s reads as a model id (with or without a
// revision) rather than a path: it parses, and is not "." or a path that
// starts with "./", "../" or "/".
func IsRef(s string) bool {
	if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, ".") {
		return false
	}
	_, err := ParseRef(s)
	return err == nil
}

// rev is the revision, DefaultRevision when none was given.
func (r Ref) rev() string {
	if r.Revision == "" {
		return DefaultRevision
	}
	return r.Revision
}

// String is the ref as ParseRef reads it: the id, with "@revision" unless
// the revision is the default.
func (r Ref) String() string {
	if r.Revision == "" || r.Revision == DefaultRevision {
		return r.ID
	}
	return r.ID + "@" + r.Revision
}

// folder is the model's folder under the models folder dir.
func (r Ref) folder(dir string) string {
	name := r.ID
	if r.Revision != "" && r.Revision != DefaultRevision {
		name += "@" + r.Revision
	}
	return filepath.Join(dir, filepath.FromSlash(name))
}
