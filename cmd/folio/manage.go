package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

func (a *app) createCommand() *cobra.Command {
	var format string
	var force bool
	var model modelFlags
	cmd := &cobra.Command{
		Use:   "create <index>",
		Short: "Create an empty document index (an error if one is there, unless --force)",
		Example: `  folio create my-index
  folio create my-index --format protobuf --hash-dims 384`,
		Args: exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			codec, err := codecFor(format)
			if err != nil {
				return err
			}
			if err := model.check(); err != nil {
				return err
			}
			storage, err := a.storage(ctx)
			if err != nil {
				return err
			}
			folder := a.folderPath(args[0])
			if force {
				// Also an index of the other format, and the model file.
				if err := storage.DeleteFolder(ctx, folder); err != nil {
					return err
				}
			} else if _, err := folio.DetectCodec(ctx, folder, storage); err == nil || !isNotFound(err) {
				return fmt.Errorf("an index exists at %s (use --force to replace it): %w", folder, core.ErrIndexExists)
			}
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: folder, IndexOptions: core.IndexOptions{Storage: storage, Codec: codec}})
			if err != nil {
				return err
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
				return err
			}
			_, rec, err := model.resolve(ctx, storage, folder)
			if err != nil {
				return err
			}
			if rec.Kind != "" {
				if err := rememberModel(ctx, storage, folder, rec); err != nil {
					return err
				}
			}
			a.printf("created %s index at %s\n", format, folder)
			a.result(map[string]any{"index": folder, "format": format, "model": recordJSON(rec)})
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", folio.FormatJSON, "index format: json or protobuf")
	cmd.Flags().BoolVar(&force, "force", false, "replace an index already there (Vectra always did)")
	model.register(cmd)
	return cmd
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, core.ErrIndexNotFound) }

// recordJSON is a model record as --json prints it; nil for none.
func recordJSON(rec modelRecord) any {
	if rec.Kind == "" {
		return nil
	}
	return rec
}

func (a *app) deleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "delete <index>",
		Short:   "Delete an index folder and everything in it",
		Example: "  folio delete my-index",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ix, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			a.printf("deleting index at %s\n", ix.folder)
			if err := ix.storage.DeleteFolder(ctx, ix.folder); err != nil {
				return err
			}
			a.result(map[string]any{"index": ix.folder, "deleted": true})
			return nil
		},
	}
}

// uriFlags are --uri and --list: the documents a command works on.
type uriFlags struct {
	uris  []string
	lists []string
}

func (u *uriFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringArrayVarP(&u.uris, "uri", "u", nil, "`URI`s: "+what+" (several: --uri a b, or --uri a --uri b)")
	cmd.Flags().StringArrayVarP(&u.lists, "list", "l", nil, "a `FILE` listing "+what+", one per line (several allowed)")
}

// all returns the URIs of --uri and of the --list file (lines trimmed,
// blank ones dropped, as Vectra reads it); none is a usage error.
func (u *uriFlags) all() ([]string, error) {
	out := append([]string(nil), u.uris...)
	for _, list := range u.lists {
		raw, err := os.ReadFile(list)
		if err != nil {
			return nil, fmt.Errorf("list file: %w", err)
		}
		for line := range strings.SplitSeq(string(raw), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	if len(out) == 0 {
		return nil, usagef(`you must specify either one or more "--uri <link>" or a "--list <file path>" of links`)
	}
	return out, nil
}

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
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			list, err := uris.all()
			if err != nil {
				return err
			}
			e, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			ix, err := e.documentIndex(nil, core.ChunkingConfig{}, nil)
			if err != nil {
				return err
			}
			uris, err := ix.DocumentURIs(ctx)
			if err != nil {
				return err
			}
			stored := newStoredURIs(uris)
			var targets []string
			targeted := map[string]bool{}
			notFound := []string{}
			for _, uri := range list {
				matched := stored.match(uri)
				if len(matched) == 0 {
					notFound = append(notFound, uri)
					fmt.Fprintf(a.stderr, "not in the index: %s\n", uri)
				}
				for _, m := range matched {
					if !targeted[m] {
						targeted[m] = true
						targets = append(targets, m)
					}
				}
			}
			removed, err := ix.DeleteDocuments(ctx, targets)
			if err != nil {
				return err
			}
			if removed == nil {
				removed = []string{}
			}
			for _, uri := range removed {
				a.printf("removed %s\n", uri)
			}
			a.result(map[string]any{"index": e.folder, "removed": removed, "notFound": notFound})
			if len(notFound) > 0 {
				a.jsonOut = false
				return fmt.Errorf("%d of %d URIs named no document", len(notFound), len(list))
			}
			return nil
		},
	}
	uris.register(cmd, "document URIs, files or folders to remove")
	return cmd
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

func (a *app) statsCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "stats <index>",
		Short:   "Print an index's format, version, metadata config and counts",
		Example: "  folio stats my-index --json",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			out := map[string]any{"index": e.folder, "format": formatOf(e.codec)}
			if rec, ok, err := readModelRecord(ctx, e.storage, e.folder); err != nil {
				return err
			} else if ok {
				out["model"] = rec
			}
			if e.documents {
				ix, err := e.documentIndex(nil, core.ChunkingConfig{}, nil)
				if err != nil {
					return err
				}
				st, err := ix.GetCatalogStats(ctx)
				if err != nil {
					return err
				}
				out["kind"], out["version"], out["documents"], out["chunks"] = "documents", st.Version, st.Documents, st.Chunks
				out["metadataConfig"] = metadataConfigJSON(st.MetadataConfig)
			} else {
				ix, err := folio.NewLocalIndex(e.folder, &folio.IndexOptions{Storage: e.storage, Codec: e.codec})
				if err != nil {
					return err
				}
				st, err := ix.GetIndexStats(ctx)
				if err != nil {
					return err
				}
				out["kind"], out["version"], out["items"] = "items", st.Version, st.Items
				out["metadataConfig"] = metadataConfigJSON(st.MetadataConfig)
			}
			if a.jsonOut {
				a.printJSON(out)
				return nil
			}
			for _, k := range []string{"index", "kind", "format", "version", "documents", "chunks", "items", "model"} {
				if v, ok := out[k]; ok {
					fmt.Fprintf(a.stdout, "%s: %v\n", k, v)
				}
			}
			fmt.Fprintf(a.stdout, "indexed metadata: %v\n", out["metadataConfig"].(map[string][]string)["indexed"])
			return nil
		},
	}
}

// metadataConfigJSON is an index's metadata config as stats prints it,
// in the index file's own spelling: {"indexed": [...]}, [] for none.
func metadataConfigJSON(c core.MetadataConfig) map[string][]string {
	indexed := c.Indexed
	if indexed == nil {
		indexed = []string{}
	}
	return map[string][]string{"indexed": indexed}
}

func (a *app) migrateCommand() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:     "migrate <index>",
		Short:   "Convert an index to another format (resumable if interrupted)",
		Example: "  folio migrate my-index --to protobuf",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := codecFor(to); err != nil {
				return err
			}
			storage, err := a.storage(cmd.Context())
			if err != nil {
				return err
			}
			folder := a.folderPath(args[0])
			if err := folio.MigrateIndex(cmd.Context(), folder, folio.MigrateOptions{To: to, Storage: storage}); err != nil {
				return err
			}
			a.printf("migrated index at %s to %s\n", folder, to)
			a.result(map[string]any{"index": folder, "format": to})
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the format to convert to: json or protobuf (required)")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

// version is the module version of this build, "(devel)" from a checkout.
// version is the module version folio was built at, or folio.Version for a
// build from a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return folio.Version
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print folio's version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			a.printf("folio %s\n", version())
			a.result(map[string]any{"version": version()})
			return nil
		},
	}
}
