package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/internal/coretest"
	"github.com/foliovec/folio/core/pathutil"
)

// Migration tests over the in-memory storage and two test codecs written
// here (the core module cannot import the real ones; the root package runs the
// same scenarios over them and Vectra's fixture folders). Ported from
// Vectra's src/codecs/migrateIndex.spec.ts, plus the fixes:
// resumable after an interruption at any step, no dangling side-car, and no
// path from a file leaving the folder.

// migStorage is a core.MemoryStorage holding the migration's folder, with
// the two helpers the tests arrange and inspect files with.
type migStorage struct{ *core.MemoryStorage }

func newMigMemStorage() *migStorage {
	s := &migStorage{core.NewMemoryStorage()}
	if err := s.CreateFolder(context.Background(), migFolder); err != nil {
		panic(err)
	}
	return s
}

// put stores a file, creating its folder.
func (s *migStorage) put(p string, b []byte) {
	ctx := context.Background()
	if err := s.CreateFolder(ctx, pathutil.Dirname(p)); err != nil {
		panic(err)
	}
	if err := s.UpsertFile(ctx, p, b); err != nil {
		panic(err)
	}
}

// snapshot is every file of the migration's folder with its content.
func (s *migStorage) snapshot() map[string][]byte {
	ctx := context.Background()
	out := map[string][]byte{}
	files, _ := s.ListFiles(ctx, migFolder, core.ListFilesOnly)
	for _, f := range files {
		out[f.Path], _ = s.ReadFile(ctx, f.Path)
	}
	return out
}

// errMigCrash stands for a crash: the Nth write or delete fails undone.
var errMigCrash = errors.New("simulated crash")

// migCrashingStorage fails the crashAt-th write or delete (1-based; 0
// never) and every one after it, as a process that died would.
type migCrashingStorage struct {
	core.FileStorage
	mu      sync.Mutex
	crashAt int
	ops     int
}

func (s *migCrashingStorage) mutate() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops++
	if s.crashAt > 0 && s.ops >= s.crashAt {
		return errMigCrash
	}
	return nil
}

func (s *migCrashingStorage) CreateFile(ctx context.Context, p string, b []byte) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.CreateFile(ctx, p, b)
}

func (s *migCrashingStorage) UpsertFile(ctx context.Context, p string, b []byte) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.UpsertFile(ctx, p, b)
}

func (s *migCrashingStorage) DeleteFile(ctx context.Context, p string) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.DeleteFile(ctx, p)
}

// migCodec is a test codec: encoding/json with a prefix, so a file left in
// the other codec's format fails to decode.
type migCodec struct {
	ext, prefix string
}

var (
	migJSON = migCodec{ext: ".json"}
	migPB   = migCodec{ext: ".pb", prefix: "PB:"}
)

func (c migCodec) Extension() string { return c.ext }

func (c migCodec) encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append([]byte(c.prefix), b...), err
}

func (c migCodec) decode(b []byte, v any) error {
	rest, ok := bytes.CutPrefix(b, []byte(c.prefix))
	if !ok {
		return fmt.Errorf("%s codec: missing prefix %q: %w", c.ext, c.prefix, core.ErrCorrupt)
	}
	if c.prefix == "" && bytes.HasPrefix(b, []byte("PB:")) {
		return fmt.Errorf("%s codec: prefixed data: %w", c.ext, core.ErrCorrupt)
	}
	if err := json.Unmarshal(rest, v); err != nil {
		return fmt.Errorf("%s codec: %w: %w", c.ext, err, core.ErrCorrupt)
	}
	return nil
}

func (c migCodec) SerializeIndex(d core.IndexData) ([]byte, error) { return c.encode(d) }
func (c migCodec) DeserializeIndex(b []byte) (core.IndexData, error) {
	var d core.IndexData
	return d, c.decode(b, &d)
}
func (c migCodec) SerializeCatalog(d core.DocumentCatalog) ([]byte, error) { return c.encode(d) }
func (c migCodec) DeserializeCatalog(b []byte) (core.DocumentCatalog, error) {
	var d core.DocumentCatalog
	return d, c.decode(b, &d)
}
func (c migCodec) SerializeMetadata(m core.Metadata) ([]byte, error) { return c.encode(m) }
func (c migCodec) DeserializeMetadata(b []byte) (core.Metadata, error) {
	var m core.Metadata
	return m, c.decode(b, &m)
}

// migFolder is the test index: three items (a side-car named as Vectra
// names them, none, and a side-car without the codec's extension), and a
// catalog of two documents, one with metadata.
const migFolder = "data/idx"

func migIndexData(c migCodec) core.IndexData {
	return core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}, Items: []core.IndexItem{
		{ID: "a", Metadata: core.Metadata{"k": "x"}, Vector: []float32{1, 0}, Norm: 1, MetadataFile: "side-a" + c.ext},
		{ID: "b", Metadata: core.Metadata{"k": "y"}, Vector: []float32{0, 1}, Norm: 1},
		{ID: "c", Metadata: core.Metadata{}, Vector: []float32{0.6, 0.8}, Norm: 1, MetadataFile: "side-c"},
	}}
}

func migCatalog() core.DocumentCatalog {
	return core.DocumentCatalog{Version: 1, Count: 2,
		URIToID: map[string]string{"u1": "doc1", "u2": "doc2"}, IDToURI: map[string]string{"doc1": "u1", "doc2": "u2"},
		URIToHash: map[string]string{"u1": "h1", "u2": "h2"}}
}

// writeMigFolder writes the test index in codec c; docs adds the catalog.
func writeMigFolder(t *testing.T, s core.FileStorage, c migCodec, docs bool) {
	t.Helper()
	ctx := context.Background()
	put := func(name string, b []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpsertFile(ctx, migFolder+"/"+name, b); err != nil {
			t.Fatal(err)
		}
	}
	b, err := c.SerializeIndex(migIndexData(c))
	put("index"+c.ext, b, err)
	b, err = c.SerializeMetadata(core.Metadata{"k": "x", "title": "A"})
	put("side-a"+c.ext, b, err)
	b, err = c.SerializeMetadata(core.Metadata{"title": "C"})
	put("side-c", b, err)
	if docs {
		b, err = c.SerializeCatalog(migCatalog())
		put("catalog"+c.ext, b, err)
		b, err = c.SerializeMetadata(core.Metadata{"lang": "en"})
		put("doc1"+c.ext, b, err)
		put("doc1.txt", []byte("one"), nil)
		put("doc2.txt", []byte("two"), nil)
	}
}

// migFiles lists the file names of the test folder, sorted.
func migFiles(s *migStorage) []string {
	var names []string
	for k := range s.snapshot() {
		names = append(names, strings.TrimPrefix(k, migFolder+"/"))
	}
	sort.Strings(names)
	return names
}

// migRead decodes a file of the test folder with c.
func migRead[T any](t *testing.T, s core.FileStorage, name string, decode func([]byte) (T, error)) T {
	t.Helper()
	b, err := s.ReadFile(context.Background(), migFolder+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decode(b)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return v
}

func TestDetectCodec(t *testing.T) {
	ctx := context.Background()
	other := migCodec{ext: ".json", prefix: "other"}
	tests := []struct {
		name    string
		files   []string
		codecs  []core.IndexCodec
		want    core.IndexCodec
		wantErr error
	}{
		{"index.json means the JSON codec", []string{"index.json"}, []core.IndexCodec{migJSON, migPB}, migJSON, nil},
		{"index.pb means the protobuf codec", []string{"index.pb"}, []core.IndexCodec{migJSON, migPB}, migPB, nil},
		{"both index files mean a partial migration", []string{"index.json", "index.pb"}, []core.IndexCodec{migJSON, migPB}, nil, core.ErrPartiallyMigrated},
		{"no index file is ErrIndexNotFound", []string{"catalog.json"}, []core.IndexCodec{migJSON, migPB}, nil, core.ErrIndexNotFound},
		{"a custom index name is never detected", []string{"custom.json"}, []core.IndexCodec{migJSON, migPB}, nil, core.ErrIndexNotFound},
		{"codecs sharing an extension count once, the first winning", []string{"index.json"}, []core.IndexCodec{other, migJSON}, other, nil},
		{"no codecs is an invalid argument", []string{"index.json"}, nil, nil, core.ErrInvalidArgument},
		{"a nil codec is an invalid argument", []string{"index.json"}, []core.IndexCodec{migJSON, nil}, nil, core.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMigMemStorage()
			for _, f := range tt.files {
				s.put(migFolder+"/"+f, []byte("x"))
			}
			c, err := DetectCodec(ctx, migFolder, s, tt.codecs...)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c != tt.want {
				t.Errorf("got codec %#v, want %#v", c, tt.want)
			}
		})
	}
	if _, err := DetectCodec(ctx, migFolder, nil, migJSON); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("nil storage: error = %v, want ErrInvalidArgument", err)
	}
}

// migExpectMigrated checks a folder migrated from src to dst.
func migExpectMigrated(t *testing.T, s *migStorage, src, dst migCodec, docs bool) {
	t.Helper()
	want := []string{"index" + dst.ext, "side-a" + dst.ext, "side-c" + dst.ext}
	if docs {
		want = append(want, "catalog"+dst.ext, "doc1"+dst.ext, "doc1.txt", "doc2.txt")
	}
	sort.Strings(want)
	if got := migFiles(s); !slices.Equal(got, want) {
		t.Fatalf("files = %q, want %q", got, want)
	}
	data := migRead(t, s, "index"+dst.ext, dst.DeserializeIndex)
	wantData := migIndexData(dst)
	wantData.Items[2].MetadataFile = "side-c" + dst.ext
	if !reflect.DeepEqual(data, wantData) {
		t.Errorf("index = %#v\nwant %#v", data, wantData)
	}
	if md := migRead(t, s, "side-a"+dst.ext, dst.DeserializeMetadata); !reflect.DeepEqual(md, core.Metadata{"k": "x", "title": "A"}) {
		t.Errorf("side-a = %v", md)
	}
	if md := migRead(t, s, "side-c"+dst.ext, dst.DeserializeMetadata); !reflect.DeepEqual(md, core.Metadata{"title": "C"}) {
		t.Errorf("side-c = %v", md)
	}
	if !docs {
		return
	}
	if cat := migRead(t, s, "catalog"+dst.ext, dst.DeserializeCatalog); !reflect.DeepEqual(cat, migCatalog()) {
		t.Errorf("catalog = %#v", cat)
	}
	if md := migRead(t, s, "doc1"+dst.ext, dst.DeserializeMetadata); !reflect.DeepEqual(md, core.Metadata{"lang": "en"}) {
		t.Errorf("doc1 metadata = %v", md)
	}
	if b := s.snapshot()[migFolder+"/doc1.txt"]; string(b) != "one" {
		t.Errorf("doc1.txt = %q, want it untouched", b)
	}
}

func TestMigrateIndex(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		src, dst migCodec
		docs     bool
	}{
		{"JSON to protobuf: new files, old removed, data intact, side-cars renamed", migJSON, migPB, false},
		{"protobuf to JSON", migPB, migJSON, false},
		{"the catalog and document metadata migrate with the index", migJSON, migPB, true},
		{"the catalog and document metadata migrate back", migPB, migJSON, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newMigMemStorage()
			writeMigFolder(t, s, tt.src, tt.docs)
			if err := Index(ctx, migFolder, tt.src, tt.dst, s); err != nil {
				t.Fatal(err)
			}
			migExpectMigrated(t, s, tt.src, tt.dst, tt.docs)
			c, err := DetectCodec(ctx, migFolder, s, migJSON, migPB)
			if err != nil || c.Extension() != tt.dst.ext {
				t.Errorf("DetectCodec after migration = %v, %v; want %s", c, err, tt.dst.ext)
			}
		})
	}
}

func TestMigrateToTheCurrentFormatIsANoOp(t *testing.T) {
	s := newMigMemStorage()
	writeMigFolder(t, s, migJSON, true)
	before := s.snapshot()
	if err := Index(context.Background(), migFolder, migJSON, migCodec{ext: ".json", prefix: "X"}, s); err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(before, s.snapshot(), bytes.Equal) {
		t.Error("files changed")
	}
}

func TestMigrateAnAlreadyMigratedFolderIsANoOp(t *testing.T) {
	s := newMigMemStorage()
	writeMigFolder(t, s, migPB, true)
	before := s.snapshot()
	if err := Index(context.Background(), migFolder, migJSON, migPB, s); err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(before, s.snapshot(), bytes.Equal) {
		t.Error("files changed")
	}
}

func TestMigrateWithoutAnIndexIsErrIndexNotFound(t *testing.T) {
	err := Index(context.Background(), migFolder, migJSON, migPB, newMigMemStorage())
	if !errors.Is(err, core.ErrIndexNotFound) {
		t.Errorf("error = %v, want ErrIndexNotFound", err)
	}
}

func TestMigrateNeedsCodecsAndStorage(t *testing.T) {
	s := newMigMemStorage()
	for name, call := range map[string]func() error{
		"nil from":    func() error { return Index(context.Background(), migFolder, nil, migPB, s) },
		"nil to":      func() error { return Index(context.Background(), migFolder, migJSON, nil, s) },
		"nil storage": func() error { return Index(context.Background(), migFolder, migJSON, migPB, nil) },
	} {
		if err := call(); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("%s: error = %v, want ErrInvalidArgument", name, err)
		}
	}
}

// Vectra's own test: an interrupted migration leaves both index files, and
// detection reports it. Folio's fix: migrating again finishes the job.
func TestInterruptedMigrationIsDetectedAndResumes(t *testing.T) {
	ctx := context.Background()
	s := newMigMemStorage()
	writeMigFolder(t, s, migJSON, true)
	// Crash on the first delete: every new file is written, nothing removed.
	crash := &migCrashingStorage{FileStorage: s, crashAt: 6}
	if err := Index(ctx, migFolder, migJSON, migPB, crash); !errors.Is(err, errMigCrash) {
		t.Fatalf("error = %v, want the crash", err)
	}
	if _, err := DetectCodec(ctx, migFolder, s, migJSON, migPB); !errors.Is(err, core.ErrPartiallyMigrated) {
		t.Fatalf("DetectCodec = %v, want core.ErrPartiallyMigrated", err)
	}
	if err := Index(ctx, migFolder, migJSON, migPB, s); err != nil {
		t.Fatal(err)
	}
	migExpectMigrated(t, s, migJSON, migPB, true)
}

// migViewIntact reports whether every file of want is in s with the same
// content.
func migViewIntact(s *migStorage, want map[string][]byte) bool {
	got := s.snapshot()
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			return false
		}
	}
	return true
}

// A crash after any write or delete leaves either the old index with all
// its files untouched or the new index with all its files complete; and
// migrating again from there gives exactly what an uninterrupted migration
// gives.
func TestMigrationResumesAfterACrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []struct{ src, dst migCodec }{{migJSON, migPB}, {migPB, migJSON}} {
		t.Run(dir.src.ext+" to "+dir.dst.ext, func(t *testing.T) {
			original := newMigMemStorage()
			writeMigFolder(t, original, dir.src, true)
			reference := newMigMemStorage()
			writeMigFolder(t, reference, dir.src, true)
			counter := &migCrashingStorage{FileStorage: reference}
			if err := Index(ctx, migFolder, dir.src, dir.dst, counter); err != nil {
				t.Fatal(err)
			}
			oldView, newView := original.snapshot(), reference.snapshot()
			steps := counter.ops
			if steps < 10 {
				t.Fatalf("only %d writes and deletes; the test folder is too small", steps)
			}
			for n := 1; n <= steps; n++ {
				s := newMigMemStorage()
				writeMigFolder(t, s, dir.src, true)
				err := Index(ctx, migFolder, dir.src, dir.dst, &migCrashingStorage{FileStorage: s, crashAt: n})
				if !errors.Is(err, errMigCrash) {
					t.Fatalf("crash at %d: error = %v, want the crash", n, err)
				}
				if !migViewIntact(s, oldView) && !migViewIntact(s, newView) {
					t.Fatalf("crash at %d of %d leaves neither the old nor the new index whole: %q", n, steps, migFiles(s))
				}
				if err := Index(ctx, migFolder, dir.src, dir.dst, s); err != nil {
					t.Fatalf("crash at %d: resume: %v", n, err)
				}
				if !maps.EqualFunc(s.snapshot(), newView, bytes.Equal) {
					t.Fatalf("crash at %d: resumed folder %q differs from an uninterrupted migration %q", n, migFiles(s), migFiles(reference))
				}
			}
		})
	}
}

// Paths read from files are checked before they become paths; nothing is
// written when one is bad.
func TestMigrateRejectsPathsLeavingTheFolder(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		mutate func(*core.IndexData, *core.DocumentCatalog)
	}{
		{"a metadataFile with ..", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "../evil.json" }},
		{"an absolute metadataFile", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "/etc/evil.json" }},
		{"a metadataFile with a backslash", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = `..\evil.json` }},
		{"a metadataFile with a drive letter", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "C:evil.json" }},
		{"a document id with ..", func(_ *core.IndexData, c *core.DocumentCatalog) { c.IDToURI[".."] = "u3" }},
		{"a document id with a separator", func(_ *core.IndexData, c *core.DocumentCatalog) { c.IDToURI["sub/doc"] = "u3" }},
		{"an empty document id", func(_ *core.IndexData, c *core.DocumentCatalog) { c.IDToURI[""] = "u3" }},
		{"a side-car named like the old index", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "index.json" }},
		{"a side-car whose new name is the new index", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "index" }},
		{"a side-car whose new name is the new catalog", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[0].MetadataFile = "catalog.json" }},
		// side-a.json becomes side-a.pb, which is item b's side-car still to convert
		{"a side-car whose new name is another's old name", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[1].MetadataFile = "side-a.pb" }},
		// side-c becomes side-c.pb, and so would side-c.json
		{"two side-cars that would get one new name", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[1].MetadataFile = "side-c.json" }},
		{"a side-car named like a document's metadata", func(d *core.IndexData, _ *core.DocumentCatalog) { d.Items[1].MetadataFile = "doc1.json" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMigMemStorage()
			writeMigFolder(t, s, migJSON, true)
			d, cat := migIndexData(migJSON), migCatalog()
			tt.mutate(&d, &cat)
			b, _ := migJSON.SerializeIndex(d)
			s.put(migFolder+"/index.json", b)
			b, _ = migJSON.SerializeCatalog(cat)
			s.put(migFolder+"/catalog.json", b)
			for _, it := range d.Items {
				if it.MetadataFile != "" && pathutil.IsLocal(it.MetadataFile) {
					_ = s.CreateFile(ctx, migFolder+"/"+it.MetadataFile, []byte(`{}`)) // never over the index
				}
			}
			before := s.snapshot()
			err := Index(ctx, migFolder, migJSON, migPB, s)
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error = %v, want ErrCorrupt", err)
			}
			if !maps.EqualFunc(before, s.snapshot(), bytes.Equal) {
				t.Errorf("files changed: %q", migFiles(s))
			}
		})
	}
}

// Vectra deletes a side-car that does not end with the source extension
// without converting it, leaving the index pointing at nothing. Folio
// converts it under its full name plus the new extension.
func TestSideCarWithoutTheSourceExtensionIsConvertedNotDangling(t *testing.T) {
	s := newMigMemStorage()
	writeMigFolder(t, s, migJSON, false)
	if err := Index(context.Background(), migFolder, migJSON, migPB, s); err != nil {
		t.Fatal(err)
	}
	data := migRead(t, s, "index.pb", migPB.DeserializeIndex)
	for _, it := range data.Items {
		if it.MetadataFile == "" {
			continue
		}
		if _, ok := s.snapshot()[migFolder+"/"+it.MetadataFile]; !ok {
			t.Errorf("item %q names %q, which does not exist", it.ID, it.MetadataFile)
		}
	}
	if got := data.Items[2].MetadataFile; got != "side-c.pb" {
		t.Errorf("side-c became %q, want side-c.pb", got)
	}
}

func TestMigrateFailsOnAMissingSideCarWithoutChangingAnything(t *testing.T) {
	s := newMigMemStorage()
	writeMigFolder(t, s, migJSON, false)
	_ = s.DeleteFile(context.Background(), migFolder+"/side-c")
	err := Index(context.Background(), migFolder, migJSON, migPB, s)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error = %v, want fs.ErrNotExist", err)
	}
	if _, err := DetectCodec(context.Background(), migFolder, s, migJSON, migPB); err != nil {
		t.Errorf("the old index no longer opens: %v", err)
	}
	if _, ok := s.snapshot()[migFolder+"/side-a.json"]; !ok {
		t.Error("an old side-car was deleted")
	}
}

func TestMigrateFailsOnUndecodableFiles(t *testing.T) {
	for _, name := range []string{"index.json", "catalog.json", "side-a.json", "doc1.json"} {
		t.Run(name, func(t *testing.T) {
			s := newMigMemStorage()
			writeMigFolder(t, s, migJSON, true)
			_ = s.UpsertFile(context.Background(), migFolder+"/"+name, []byte("PB:{"))
			if err := Index(context.Background(), migFolder, migJSON, migPB, s); !errors.Is(err, core.ErrCorrupt) {
				t.Errorf("error = %v, want ErrCorrupt", err)
			}
			if _, ok := s.snapshot()[migFolder+"/index.pb"]; ok {
				t.Error("the new index was written")
			}
		})
	}
}

func TestMigratePassesCancellationThrough(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := newMigMemStorage()
	writeMigFolder(t, s, migJSON, true)
	before := s.snapshot()
	if err := Index(ctx, migFolder, migJSON, migPB, s); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if !maps.EqualFunc(before, s.snapshot(), bytes.Equal) {
		t.Error("files changed")
	}
}

// DetectCodec and Index return an ended context's error unchanged.
func TestEndedContextIsReturnedUnchanged(t *testing.T) {
	s := newMigMemStorage()
	b, _ := migJSON.SerializeIndex(migIndexData(migJSON))
	s.put(migFolder+"/index.json", b)
	calls := map[string]func(context.Context) error{
		"DetectCodec": func(ctx context.Context) error {
			_, err := DetectCodec(ctx, migFolder, s, migJSON)
			return err
		},
		"Index": func(ctx context.Context) error { return Index(ctx, migFolder, migJSON, migPB, s) },
	}
	coretest.EndedContexts(t, nil, calls)
}
