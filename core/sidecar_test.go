package core

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Fixes of the design §5 on side-car files and single writes.

// sidecarIndex is an index whose commits delete the files they drop at
// once (RetainDropped < 0); graveyard_test.go covers the default, which
// keeps them for readers first.
func sidecarIndex(t *testing.T) (*LocalIndex, *memTestStorage) {
	t.Helper()
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	return ix, st
}

func TestSidecarCleanup(t *testing.T) {
	full := Metadata{"a": "x", "b": "y"}
	t.Run("deleting an item removes its side-car after the commit", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		it := mustInsert(t, ix, "1", []float32{1}, full)
		keep := mustInsert(t, ix, "2", []float32{1}, full)
		if err := ix.DeleteItem(ctxb, "1"); err != nil {
			t.Fatal(err)
		}
		files := st.fileNames(idxTestFolder)
		if slices.Contains(files, it.MetadataFile) || !slices.Contains(files, keep.MetadataFile) {
			t.Fatalf("files = %v; want %s gone and %s kept", files, it.MetadataFile, keep.MetadataFile)
		}
	})
	t.Run("DeleteItems removes every deleted item's side-car", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		mustInsert(t, ix, "1", []float32{1}, full)
		mustInsert(t, ix, "2", []float32{1}, full)
		if err := ix.DeleteItems(ctxb, []string{"1", "2"}); err != nil {
			t.Fatal(err)
		}
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, []string{"index.json"}) {
			t.Fatalf("files = %v", files)
		}
	})
	t.Run("replacing an item removes its old side-car", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		old := mustInsert(t, ix, "1", []float32{1}, full)
		nu, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{2}, Metadata: Metadata{"a": "z", "c": 1}})
		if err != nil {
			t.Fatal(err)
		}
		files := st.fileNames(idxTestFolder)
		if slices.Contains(files, old.MetadataFile) || !slices.Contains(files, nu.MetadataFile) || len(files) != 2 {
			t.Fatalf("files = %v; want index.json and %s", files, nu.MetadataFile)
		}
		// Replaced by an item without side-car: none left.
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{2}, Metadata: Metadata{"a": "z"}}); err != nil {
			t.Fatal(err)
		}
		if files := st.fileNames(idxTestFolder); len(files) != 1 {
			t.Fatalf("files = %v", files)
		}
	})
	t.Run("an item written twice in one batch leaves one side-car", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "1", []float32{1}, full)
		last, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: full})
		if err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "2", []float32{1}, full)
		if err := ix.DeleteItem(ctxb, "2"); err != nil {
			t.Fatal(err)
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, sortedStrings("index.json", last.MetadataFile)) {
			t.Fatalf("files = %v", files)
		}
	})
	t.Run("a cancelled batch leaves no file behind", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		committed := mustInsert(t, ix, "0", []float32{1}, full)
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "1", []float32{1}, full)
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "0", Vector: []float32{1}, Metadata: full}); err != nil {
			t.Fatal(err)
		}
		if err := ix.DeleteItem(ctxb, "0"); err != nil {
			t.Fatal(err)
		}
		ix.CancelUpdate()
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, sortedStrings("index.json", committed.MetadataFile)) {
			t.Fatalf("files = %v; want the committed state only", files)
		}
		got, err := ix.QueryItems(ctxb, []float32{1}, "", 1, nil, false)
		if err != nil || got[0].Item.Metadata["b"] != "y" {
			t.Fatalf("committed item's side-car unreadable: %v, %v", got, err)
		}
	})
	t.Run("a side-car is not removed when the commit dropping it fails", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		it := mustInsert(t, ix, "1", []float32{1}, full)
		st.failWrite = func(string) error { return errors.New("disk full") }
		if err := ix.DeleteItem(ctxb, "1"); err == nil {
			t.Fatal("delete succeeded")
		}
		st.failWrite = nil
		if files := st.fileNames(idxTestFolder); !slices.Contains(files, it.MetadataFile) {
			t.Fatalf("files = %v; the side-car went before the commit", files)
		}
		if got := itemIDs(mustList(t, reopen(t, st))); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("a side-car shared by two items of a foreign file stays while one refers to it", func(t *testing.T) {
		st := newMemTestStorage()
		data := IndexData{Version: 1, MetadataConfig: MetadataConfig{Indexed: []string{"a"}}, Items: []IndexItem{
			{ID: "1", Vector: []float32{1}, Norm: 1, Metadata: Metadata{"a": "x"}, MetadataFile: "shared.json"},
			{ID: "2", Vector: []float32{1}, Norm: 1, Metadata: Metadata{"a": "x"}, MetadataFile: "shared.json"},
		}}
		raw, _ := jsonTestCodec{}.SerializeIndex(data)
		st.put(idxTestFolder+"/index.json", raw)
		st.put(idxTestFolder+"/shared.json", []byte(`{"a":"x","b":"y"}`))
		ix := reopen(t, st)
		if err := ix.DeleteItem(ctxb, "1"); err != nil {
			t.Fatal(err)
		}
		if files := st.fileNames(idxTestFolder); !slices.Contains(files, "shared.json") {
			t.Fatalf("files = %v", files)
		}
	})
}

func TestFailedSingleWriteLeavesNoBatch(t *testing.T) {
	tests := []struct {
		name  string
		write func(ix *LocalIndex) error
	}{
		{"a duplicate insert", func(ix *LocalIndex) error {
			_, err := ix.InsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}})
			return err
		}},
		{"an invalid vector", func(ix *LocalIndex) error {
			_, err := ix.UpsertItem(ctxb, IndexItem{ID: "2"})
			return err
		}},
		{"a wrong dimension", func(ix *LocalIndex) error {
			_, err := ix.UpsertItem(ctxb, IndexItem{ID: "2", Vector: []float32{1, 2}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" fails and leaves no batch open", func(t *testing.T) {
			ix, _ := newCreatedIndex(t, CreateIndexConfig{})
			mustInsert(t, ix, "1", []float32{1}, nil)
			if err := tt.write(ix); err == nil {
				t.Fatal("write succeeded")
			}
			if err := ix.BeginUpdate(ctxb); err != nil {
				t.Fatalf("BeginUpdate after failed write = %v", err)
			}
		})
	}
	t.Run("a failed save of a single write leaves no batch open and nothing visible", func(t *testing.T) {
		ix, st := sidecarIndex(t)
		st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "/index.json") {
				return errors.New("disk full")
			}
			return nil
		}
		if _, err := ix.InsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"a": 1, "b": 2}}); err == nil {
			t.Fatal("insert succeeded")
		}
		st.failWrite = nil
		if n := len(mustList(t, ix)); n != 0 {
			t.Fatalf("items = %d", n)
		}
		// The failed write may have landed (an error after the write):
		// its side-car stays until a commit finds the index not naming it.
		if files := st.fileNames(idxTestFolder); len(files) != 2 {
			t.Fatalf("files = %v; the failed write's side-car must stay for now", files)
		}
		mustInsert(t, ix, "2", []float32{1}, Metadata{"a": 1})
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, []string{"index.json"}) {
			t.Fatalf("files = %v; the next commit must remove the failed write's side-car", files)
		}
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a single write is durable when it returns", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1}, nil)
		if got := itemIDs(mustList(t, reopen(t, st))); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("reloaded ids = %v", got)
		}
	})
}

func TestPathsStayInsideTheFolder(t *testing.T) {
	for _, bad := range []string{"../evil.json", "/etc/passwd", "a/../../b.json", "..", "c:\\x.json", "a\\..\\b", "./x.json", "a//b"} {
		t.Run("a metadataFile "+bad+" read from the index file is ErrCorrupt", func(t *testing.T) {
			st := newMemTestStorage()
			data := IndexData{Version: 1, Items: []IndexItem{{ID: "1", Vector: []float32{1}, Norm: 1, Metadata: Metadata{}, MetadataFile: bad}}}
			raw, _ := jsonTestCodec{}.SerializeIndex(data)
			st.put(idxTestFolder+"/index.json", raw)
			if _, err := reopen(t, st).QueryItems(ctxb, []float32{1}, "", 1, nil, false); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("QueryItems = %v; want ErrCorrupt", err)
			}
		})
	}
	for _, bad := range []string{"../index.json", "/abs.json", "a/../../x"} {
		t.Run("an index name "+bad+" is ErrInvalidArgument", func(t *testing.T) {
			_, err := NewLocalIndex("f", IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, IndexName: bad})
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("NewLocalIndex = %v", err)
			}
		})
	}
	t.Run("a missing storage or codec is ErrInvalidArgument", func(t *testing.T) {
		if _, err := NewLocalIndex("f", IndexOptions{Codec: jsonTestCodec{}}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatal(err)
		}
		if _, err := NewLocalIndex("f", IndexOptions{Storage: newMemTestStorage()}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatal(err)
		}
	})
	t.Run("a failed CreateIndex removes its index file, not the folder", func(t *testing.T) {
		ix, st := newTestIndex(t)
		st.put(idxTestFolder+"/notes.txt", []byte("mine"))
		st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "/index.json") {
				return errors.New("disk full")
			}
			return nil
		}
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); err == nil {
			t.Fatal("CreateIndex succeeded")
		}
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, []string{"notes.txt"}) {
			t.Fatalf("files = %v", files)
		}
	})
}

func sortedStrings(s ...string) []string {
	slices.Sort(s)
	return s
}

// The side-car column stays empty until a row has one, then holds every
// row up to the last that has one; rows past its end have none.
func TestSideCarsColumn(t *testing.T) {
	var c sideCars
	for i := range 5 {
		c = c.with(i, "")
	}
	if c != nil || c.at(3) != "" {
		t.Fatalf("no side-cars: %q", c)
	}
	c = c.with(5, "a.json").with(6, "").with(7, "b.json")
	if len(c) != 8 || c.at(5) != "a.json" || c.at(6) != "" || c.at(7) != "b.json" || c.at(4) != "" || c.at(100) != "" {
		t.Fatalf("side-cars at 5 and 7: %q", c)
	}
	// A later snapshot appends past a shared prefix; the earlier one
	// still reads its own rows only.
	earlier := c[:6:8]
	later := earlier.with(9, "c.json")
	if earlier.at(7) != "" || later.at(9) != "c.json" || later.at(5) != "a.json" {
		t.Fatalf("earlier %q, later %q", earlier, later)
	}
}
