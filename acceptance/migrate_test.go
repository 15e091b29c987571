package acceptance_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// Migration acceptance tests over Vectra's own folders, on the local file
// system. Ported from Vectra's src/codecs/migrateIndex.spec.ts;
// the expected results are the folders Vectra itself wrote.

// migrateSameContent checks that two folders in codec c hold the same
// files with the same decoded content: index, catalog, item side-cars and
// document metadata decoded with c, other files (document text) byte for
// byte.
func migrateSameContent(t *testing.T, gotDir, wantDir string, c core.IndexCodec) {
	t.Helper()
	got, want := migrateFiles(t, gotDir), migrateFiles(t, wantDir)
	if g, w := migrateNames(got), migrateNames(want); !slices.Equal(g, w) {
		t.Fatalf("files differ:\n got %q\nwant %q", g, w)
	}
	for name, w := range want {
		g := got[name]
		var gv, wv any
		var gerr, werr error
		switch {
		case name == "index"+c.Extension():
			var gd, wd core.IndexData
			gd, gerr = c.DeserializeIndex(g)
			wd, werr = c.DeserializeIndex(w)
			// A protobuf index cannot tell "metadata_config":{} from
			// {"indexed":[]}; Vectra's migration turns the first into the
			// second too.
			if len(gd.MetadataConfig.Indexed) == 0 && len(wd.MetadataConfig.Indexed) == 0 {
				gd.MetadataConfig.Indexed, wd.MetadataConfig.Indexed = nil, nil
			}
			gv, wv = gd, wd
		case name == "catalog"+c.Extension():
			gv, gerr = c.DeserializeCatalog(g)
			wv, werr = c.DeserializeCatalog(w)
		case strings.HasSuffix(name, c.Extension()):
			gv, gerr = c.DeserializeMetadata(g)
			wv, werr = c.DeserializeMetadata(w)
		default:
			if !bytes.Equal(g, w) {
				t.Errorf("%s differs", name)
			}
			continue
		}
		if gerr != nil || werr != nil {
			t.Errorf("%s: decode: got %v, want %v", name, gerr, werr)
			continue
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Errorf("%s: content differs:\n got %.600v\nwant %.600v", name, gv, wv)
		}
	}
}

func TestMigrateItemsJSONToProtobufAsVectraDoes(t *testing.T) {
	ctx := context.Background()
	dir := migrateCopyFixture(t, "items-json")
	if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatProtobuf}); err != nil {
		t.Fatal(err)
	}
	vectra := filepath.Join(testkit.FixtureDir(t), "items-migrated-protobuf")
	migrateSameContent(t, dir, vectra, codecpb.New())
	// Every item's inline metadata is {category, year}, in sorted order, so
	// even the bytes of the index agree (side-cars differ only in key order).
	got, _ := os.ReadFile(filepath.Join(dir, "index.pb"))
	want, _ := os.ReadFile(filepath.Join(vectra, "index.pb"))
	if !bytes.Equal(got, want) {
		t.Errorf("index.pb differs from the one Vectra's migration wrote (%d vs %d bytes)", len(got), len(want))
	}
}

func TestMigrateItemsBackToJSONGivesTheOriginalContent(t *testing.T) {
	ctx := context.Background()
	dir := migrateCopyFixture(t, "items-json")
	for _, to := range []string{folio.FormatProtobuf, folio.FormatJSON} {
		if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: to}); err != nil {
			t.Fatal(err)
		}
	}
	// Vectors were float32 in between; the JSON codec reads them as float32
	// anyway, so the decoded content is the same.
	migrateSameContent(t, dir, filepath.Join(testkit.FixtureDir(t), "items-json"), codecjson.New())
}

func TestMigrateProtobufItemsToJSON(t *testing.T) {
	ctx := context.Background()
	dir := migrateCopyFixture(t, "items-protobuf")
	if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	migrateSameContent(t, dir, filepath.Join(testkit.FixtureDir(t), "items-json"), codecjson.New())
}

func TestMigrateDocumentIndexCarriesCatalogAndDocumentMetadata(t *testing.T) {
	ctx := context.Background()
	dir := migrateCopyFixture(t, "docs-json")
	if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatProtobuf}); err != nil {
		t.Fatal(err)
	}
	migrateSameContent(t, dir, filepath.Join(testkit.FixtureDir(t), "docs-protobuf"), codecpb.New())

	if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	migrateSameContent(t, dir, filepath.Join(testkit.FixtureDir(t), "docs-json"), codecjson.New())
}

func TestDetectCodecOnVectraFolders(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		folder  string
		want    string
		wantErr error
	}{
		{"items-json", ".json", nil},
		{"items-protobuf", ".pb", nil},
		{"docs-json", ".json", nil},
		{"docs-protobuf", ".pb", nil},
	}
	for _, tt := range tests {
		t.Run(tt.folder, func(t *testing.T) {
			c, err := folio.DetectCodec(ctx, filepath.Join(testkit.FixtureDir(t), tt.folder), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Extension() != tt.want {
				t.Errorf("codec %s, want %s", c.Extension(), tt.want)
			}
		})
	}
	t.Run("both index files mean a partial migration", func(t *testing.T) {
		dir := migrateCopyFixture(t, "items-json")
		raw, _ := os.ReadFile(filepath.Join(testkit.FixtureDir(t), "items-protobuf", "index.pb"))
		if err := os.WriteFile(filepath.Join(dir, "index.pb"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := folio.DetectCodec(ctx, dir, localStorage()); !errors.Is(err, core.ErrPartiallyMigrated) {
			t.Errorf("error = %v, want ErrPartiallyMigrated", err)
		}
	})
	t.Run("no index file is ErrIndexNotFound", func(t *testing.T) {
		if _, err := folio.DetectCodec(ctx, t.TempDir(), nil); !errors.Is(err, core.ErrIndexNotFound) {
			t.Errorf("error = %v, want ErrIndexNotFound", err)
		}
	})
}

func TestMigrateToTheCurrentFormatChangesNothing(t *testing.T) {
	for _, tt := range []struct{ folder, to string }{{"items-json", folio.FormatJSON}, {"docs-protobuf", folio.FormatProtobuf}} {
		t.Run(tt.folder, func(t *testing.T) {
			dir := migrateCopyFixture(t, tt.folder)
			before := migrateFiles(t, dir)
			if err := folio.MigrateIndex(context.Background(), dir, folio.MigrateOptions{To: tt.to}); err != nil {
				t.Fatal(err)
			}
			after := migrateFiles(t, dir)
			if !reflect.DeepEqual(before, after) {
				t.Error("files changed")
			}
		})
	}
}

func TestMigrateRejectsUnknownFormats(t *testing.T) {
	dir := migrateCopyFixture(t, "items-json")
	for _, to := range []string{"", "JSON", "pb", "proto", "yaml"} {
		err := folio.MigrateIndex(context.Background(), dir, folio.MigrateOptions{To: to})
		if !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("To %q: error = %v, want ErrInvalidArgument", to, err)
		}
	}
}

func TestMigrateWithoutAnIndexIsErrIndexNotFound(t *testing.T) {
	err := folio.MigrateIndex(context.Background(), t.TempDir(), folio.MigrateOptions{To: folio.FormatProtobuf})
	if !errors.Is(err, core.ErrIndexNotFound) {
		t.Errorf("error = %v, want ErrIndexNotFound", err)
	}
}

// A migration that crashes after any write or delete leaves one whole
// index behind (Vectra's detection then reports the partial state), and
// running it again finishes with exactly the folder an uninterrupted
// migration makes. Every step of the document index; chosen steps of the
// 45-side-car items index.
func TestInterruptedMigrationResumesOnDisk(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		folder string
		every  bool
	}{{"docs-json", true}, {"items-json", false}} {
		t.Run(tt.folder, func(t *testing.T) {
			reference := migrateCopyFixture(t, tt.folder)
			counter := &migrateCrashingStorage{FileStorage: localStorage()}
			if err := folio.MigrateIndex(ctx, reference, folio.MigrateOptions{To: folio.FormatProtobuf, Storage: counter}); err != nil {
				t.Fatal(err)
			}
			want := migrateFiles(t, reference)
			steps := counter.ops
			crashes := []int{1, steps / 4, steps/2 - 1, steps / 2, steps/2 + 1, steps/2 + 2, 3 * steps / 4, steps}
			if tt.every {
				crashes = crashes[:0]
				for n := 1; n <= steps; n++ {
					crashes = append(crashes, n)
				}
			}
			for _, n := range crashes {
				dir := migrateCopyFixture(t, tt.folder)
				crash := &migrateCrashingStorage{FileStorage: localStorage(), crashAt: n}
				err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatProtobuf, Storage: crash})
				if !errors.Is(err, errMigrateCrash) {
					t.Fatalf("crash at %d of %d: error = %v, want the crash", n, steps, err)
				}
				if _, err := folio.DetectCodec(ctx, dir, nil); err != nil && !errors.Is(err, core.ErrPartiallyMigrated) {
					t.Fatalf("crash at %d of %d: detect: %v", n, steps, err)
				}
				if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: folio.FormatProtobuf}); err != nil {
					t.Fatalf("crash at %d of %d: resume: %v", n, steps, err)
				}
				if got := migrateFiles(t, dir); !reflect.DeepEqual(got, want) {
					t.Fatalf("crash at %d of %d: resumed folder %q differs from an uninterrupted migration %q",
						n, steps, migrateNames(got), migrateNames(want))
				}
			}
		})
	}
}
