package core

import (
	"context"
	"fmt"

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

// newSidecar serializes md as a new side-car file, to be written by the
// commit, and returns its name and content.
func (ix *LocalIndex) newSidecar(md Metadata) (string, []byte, error) {
	name := uuid.New() + ix.codec.Extension()
	raw, err := ix.codec.SerializeMetadata(md)
	if err != nil {
		return "", nil, fmt.Errorf("serialize metadata file %q: %w", name, err)
	}
	return name, raw, nil
}

// writeSidecars writes the side-car files of b that an item still refers
// to, as one group (one durability barrier on storage that offers it),
// before the index file that names them.
func (ix *LocalIndex) writeSidecars(ctx context.Context, b *batch) error {
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
			files = append(files, FileWrite{Path: ix.path(f.Path), Content: f.Content})
		}
	}
	b.triedSidecars = true
	if err := ix.files.writeGroup(ctx, files); err != nil {
		return fmt.Errorf("write metadata files: %w", err)
	}
	b.sidecars = nil
	return nil
}

// removeSidecars deletes side-car files, logging failures: the commit they
// follow has succeeded, so they only leave orphans behind.
func (ix *LocalIndex) removeSidecars(ctx context.Context, names []string) {
	for _, name := range names {
		if !ix.ownFile(name, ix.codec.Extension()) {
			ix.log.Warn("metadata file not removed: not named as a side-car", "folder", ix.folder, "file", name)
			continue
		}
		if err := ix.storage.DeleteFile(ctx, ix.path(name)); err != nil {
			ix.log.Warn("remove metadata file", "folder", ix.folder, "file", name, "err", err)
		}
	}
}

// maxSidecarReads bounds the side-car files a query reads at once.
const maxSidecarReads = 16

// loadSidecars replaces the metadata of each result that has a side-car
// with the side-car's content, reading them concurrently. A missing or
// undecodable side-car fails the query, as in Vectra.
func (ix *LocalIndex) loadSidecars(ctx context.Context, results []QueryResult) error {
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
		md, err := ix.readSidecar(ctx, results[i].Item.MetadataFile)
		if err == nil {
			results[i].Item.Metadata = md
		}
		return err
	})
}

func (ix *LocalIndex) readSidecar(ctx context.Context, name string) (Metadata, error) {
	raw, err := ix.storage.ReadFile(ctx, ix.path(name))
	if err != nil {
		return nil, fmt.Errorf("read metadata file %q: %w", name, err)
	}
	md, err := ix.codec.DeserializeMetadata(raw)
	if err != nil {
		return nil, fmt.Errorf("decode metadata file %q: %w", name, err)
	}
	return md, nil
}
