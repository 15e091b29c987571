package core

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/foliovec/folio/core/internal/par"

	"github.com/foliovec/folio/core/internal/uuid"
)

// Side-car files hold the full metadata of items that have keys outside
// MetadataConfig.Indexed. Each is named "<uuid><ext>", a
// fresh uuid per write (not the item id), in the index folder, and its name
// is the item's MetadataFile. In a protobuf index they hold JSON text, as
// the codec's SerializeMetadata writes it.
//
// A batch writes its side-cars when it commits, all together, before the
// index file: through the storage's GroupWriter when it has one (one
// durability barrier for the whole batch), else several at once.
//
// Fixes over Vectra: a side-car is removed once the commit that drops or
// replaces its item is written (never before, so a crash cannot leave the
// index pointing at a missing file), and a cancelled batch removes the
// side-cars it wrote. A MetadataFile read from an index file that would
// leave the folder makes the file corrupt (see snapshotFromData).

// sidecars reads and writes an index's side-car files.
type sidecars struct {
	files *files // the index's storage and codec
	names folderNames
	log   *slog.Logger
}

// new serializes md as a new side-car file, to be written by the
// commit, and returns its name and content.
func (sc sidecars) new(md Metadata) (string, []byte, error) {
	name := uuid.New() + sc.files.codec.Extension()
	raw, err := sc.files.codec.SerializeMetadata(md)
	if err != nil {
		return "", nil, fmt.Errorf("serialize metadata file %q: %w", name, err)
	}
	return name, raw, nil
}

// write writes the side-car files of b that an item still refers
// to, as one group (one durability barrier on storage that offers it),
// before the index file that names them.
func (sc sidecars) write(ctx context.Context, b *batch) error {
	if len(b.sidecars) == 0 {
		return nil
	}
	dropped := make(map[string]bool, len(b.dropped))
	for _, f := range b.dropped {
		dropped[f] = true
	}
	files := make([]FileWrite, 0, len(b.sidecars))
	for _, f := range b.sidecars {
		if !dropped[f.Path] {
			files = append(files, FileWrite{Path: sc.names.path(f.Path), Content: f.Content})
		}
	}
	b.triedSidecars = true
	if err := sc.files.writeGroup(ctx, files); err != nil {
		return fmt.Errorf("write metadata files: %w", err)
	}
	b.sidecars = nil
	return nil
}

// remove deletes side-car files, logging failures: the commit they
// follow has succeeded, so they only leave orphans behind.
func (sc sidecars) remove(ctx context.Context, names []string) {
	for _, name := range names {
		if !sc.names.ownFile(name, sc.files.codec.Extension()) {
			sc.log.Warn("metadata file not removed: not named as a side-car", "folder", sc.names.folder, "file", name)
			continue
		}
		if err := sc.files.storage.DeleteFile(ctx, sc.names.path(name)); err != nil {
			sc.log.Warn("remove metadata file", "folder", sc.names.folder, "file", name, "err", err)
		}
	}
}

// maxSidecarReads bounds the side-car files a query reads at once.
const maxSidecarReads = 16

// load replaces the metadata of each result that has a side-car
// with the side-car's content, reading them concurrently. A missing or
// undecodable side-car fails the query, as in Vectra.
func (sc sidecars) load(ctx context.Context, results []QueryResult) error {
	var todo []int
	for i := range results {
		if results[i].Item.MetadataFile != "" {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return par.Each(ctx, len(todo), maxSidecarReads, func(ctx context.Context, j int) error {
		i := todo[j]
		md, err := sc.read(ctx, results[i].Item.MetadataFile)
		if err == nil {
			results[i].Item.Metadata = md
		}
		return err
	})
}

// read reads and decodes the side-car name.
func (sc sidecars) read(ctx context.Context, name string) (Metadata, error) {
	raw, err := sc.files.storage.ReadFile(ctx, sc.names.path(name))
	if err != nil {
		return nil, fmt.Errorf("read metadata file %q: %w", name, err)
	}
	md, err := sc.files.codec.DeserializeMetadata(raw)
	if err != nil {
		return nil, fmt.Errorf("decode metadata file %q: %w", name, err)
	}
	return md, nil
}
