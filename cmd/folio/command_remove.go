package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/core"
)

func (a *app) removeCommand() *cobra.Command {
	var uris uriFlags
	cmd := &cobra.Command{
		Use:   "remove <index>",
		Short: "Remove documents from a document index by URI, file or folder",
		Long: `remove deletes the documents stored under each --uri, in one commit. A local
path may be spelled any way that names the stored file (relative, with ./,
absolute); a folder removes every document stored below it. A URI that
matches no document is reported on stderr and the exit status is 1.`,
		Example: "  folio remove my-index --uri docs/old.md docs/drafts/",
		Args:    exactArgs(1, "<index>"),
		RunE:    func(cmd *cobra.Command, args []string) error { return a.runRemove(cmd.Context(), &uris, args[0]) },
	}
	uris.register(cmd, "document URIs, files or folders to remove")
	return cmd
}

// runRemove deletes, in one commit, every document each URI names.
func (a *app) runRemove(ctx context.Context, uris *uriFlags, index string) error {
	list, err := uris.all()
	if err != nil {
		return err
	}
	e, err := a.openExisting(ctx, index)
	if err != nil {
		return err
	}
	ix, err := e.documentIndex(nil, core.ChunkingConfig{}, nil)
	if err != nil {
		return err
	}
	stored, err := ix.DocumentURIs(ctx)
	if err != nil {
		return err
	}
	targets, notFound := newStoredURIs(stored).targets(list)
	for _, uri := range notFound {
		fmt.Fprintf(a.stderr, "not in the index: %s\n", uri)
	}
	removed, err := ix.DeleteDocuments(ctx, targets)
	if err != nil {
		return err
	}
	if removed == nil {
		removed = []string{}
	}
	a.show(removeResult{Index: e.folder, NotFound: notFound, Removed: removed})
	if len(notFound) > 0 {
		a.jsonOut = false
		return fmt.Errorf("%d of %d URIs named no document", len(notFound), len(list))
	}
	return nil
}

// targets returns the stored URIs the URIs named match, each once, and the
// URIs named that match none.
func (st storedURIs) targets(named []string) (targets, notFound []string) {
	seen := map[string]bool{}
	notFound = []string{}
	for _, uri := range named {
		matched := st.match(uri)
		if len(matched) == 0 {
			notFound = append(notFound, uri)
		}
		for _, m := range matched {
			if !seen[m] {
				seen[m] = true
				targets = append(targets, m)
			}
		}
	}
	return targets, notFound
}

// storedURIs are an index's URIs with the absolute spellings of the local
// ones, worked out once for every URI remove is given.
type storedURIs struct {
	uris      []string
	spellings map[string][]string // local URI → its absolute spellings
}

func newStoredURIs(uris []string) storedURIs {
	st := storedURIs{uris: uris, spellings: make(map[string][]string, len(uris))}
	for _, u := range uris {
		switch {
		case isWebURI(u):
		case filepath.IsAbs(u) && filepath.Clean(u) == u:
			st.spellings[u] = []string{u} // as add and watch spell files
		default:
			st.spellings[u] = localSpellings(u)
		}
	}
	return st
}

// match returns the stored URIs that uri names: itself; for a local path,
// any stored spelling of the same file (see core.LocalFileURI), and every
// document stored below it when it is a folder.
func (st storedURIs) match(uri string) []string {
	var out []string
	if isWebURI(uri) {
		if slices.Contains(st.uris, uri) {
			out = append(out, uri)
		}
		return out
	}
	want := localSpellings(uri)
	for _, s := range st.uris {
		if s == uri {
			out = append(out, s)
			continue
		}
		for _, have := range st.spellings[s] {
			if slices.ContainsFunc(want, func(w string) bool { return have == w || strings.HasPrefix(have, w+string(filepath.Separator)) }) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// localSpellings are the absolute spellings of a local path: cleaned, and
// with symbolic links resolved where they exist.
func localSpellings(p string) []string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil
	}
	out := []string{abs}
	if real, err := core.LocalFileURI(p); err == nil && real != abs {
		out = append(out, real)
	}
	return out
}
