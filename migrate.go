package folio

import (
	"context"
	"errors"
	"fmt"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
	"github.com/foliovec/folio/core/migrate"
)

// Formats MigrateOptions.To accepts.
const (
	FormatJSON     = manager.FormatJSON
	FormatProtobuf = manager.FormatProtobuf
	// FormatSegmented is Folio's segmented layout with protobuf metadata
	// (core.LayoutSegmented): commits write only what changed. Vectra
	// cannot read it; migrating to FormatJSON or FormatProtobuf gives
	// Vectra's index file back.
	FormatSegmented = manager.FormatSegmented
)

// MigrateOptions configures MigrateIndex.
type MigrateOptions struct {
	// To is the format to convert the index to: FormatJSON,
	// FormatProtobuf or FormatSegmented. Vectra takes anything but
	// "protobuf" to mean JSON; Folio rejects anything else, so a typo
	// never converts an index the wrong way.
	To string
	// Storage holds the folder; nil means the local file system.
	Storage core.FileStorage
}

// DetectCodec returns the JSON or the protobuf codec, whichever's index
// file (index.json or index.pb) is in folderPath; a nil storage means the
// local file system. Both present is an error wrapping
// core.ErrPartiallyMigrated (run MigrateIndex to finish); neither,
// core.ErrIndexNotFound.
func DetectCodec(ctx context.Context, folderPath string, storage core.FileStorage) (core.IndexCodec, error) {
	if storage == nil {
		local, err := storagefs.New(nil)
		if err != nil {
			return nil, err
		}
		storage = local
	}
	return migrate.DetectCodec(ctx, folderPath, storage, codecjson.New(), codecpb.New())
}

// MigrateIndex converts the index in folderPath, with its side-car files,
// catalog and document metadata, to the format opts.To names. An index
// already in that format is left alone. The migration can be interrupted
// at any point and finishes when run again; see migrate.Index.
//
// Between layouts (to or from FormatSegmented) the index is converted in
// place by core.LocalIndex.ConvertLayout, after or before the codec
// conversion: a JSON index becomes protobuf first, and a segmented index
// becomes an index file first.
func MigrateIndex(ctx context.Context, folderPath string, opts MigrateOptions) error {
	var from, to core.IndexCodec
	switch opts.To {
	case FormatJSON:
		from, to = codecpb.New(), codecjson.New()
	case FormatProtobuf, FormatSegmented:
		from, to = codecjson.New(), codecpb.New()
	default:
		return fmt.Errorf("folio: migrate index in %q: format %q is not %q, %q or %q: %w",
			folderPath, opts.To, FormatJSON, FormatProtobuf, FormatSegmented, core.ErrInvalidArgument)
	}
	storage := opts.Storage
	if storage == nil {
		local, err := storagefs.New(nil)
		if err != nil {
			return err
		}
		storage = local
	}
	// A segmented index becomes an index file first, in its own codec.
	for _, c := range []core.IndexCodec{from, to} {
		layout, err := migrate.DetectLayout(ctx, folderPath, storage, c)
		if errors.Is(err, core.ErrIndexNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if layout == core.LayoutSegmented && (opts.To != FormatSegmented || c != to) {
			if err := migrate.Layout(ctx, folderPath, c, storage, core.LayoutFile, core.IndexOptions{}); err != nil {
				return err
			}
		}
	}
	if layout, err := migrate.DetectLayout(ctx, folderPath, storage, to); err == nil && layout == core.LayoutSegmented {
		return nil // already segmented protobuf
	}
	if err := migrate.Index(ctx, folderPath, from, to, storage); err != nil {
		return err
	}
	if opts.To == FormatSegmented {
		return migrate.Layout(ctx, folderPath, to, storage, core.LayoutSegmented, core.IndexOptions{})
	}
	return nil
}
