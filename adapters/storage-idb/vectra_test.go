//go:build js && wasm

package storageidb_test

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"syscall/js"
	"testing"

	"github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/conformance/browsertest"
	"github.com/foliovec/folio/core"
)

// The cases below check the database layout against what Vectra 0.15's
// IndexedDBStorage writes and reads, record by record, and what this
// storage fixes.

// rawJS runs the JavaScript function source with args and waits for the
// promise it returns.
func rawJS(t *testing.T, source string, args ...any) js.Value {
	t.Helper()
	fn := js.Global().Get("Function").New("return (" + source + ")").Invoke()
	return await(t, fn.Invoke(args...))
}

// await waits for promise and returns its value; a rejection fails t.
func await(t *testing.T, promise js.Value) js.Value {
	t.Helper()
	v, err := browsertest.Await(promise)
	if err != nil {
		t.Fatalf("javascript: %v", err)
	}
	return v
}

// putVectraRecords writes records the way Vectra's IndexedDBStorage does:
// createFolder puts every ancestor with parentPath "" at the top, and
// createFile adds {path, parentPath: dirname, content: ArrayBuffer, …}.
const putVectraRecords = `async (name) => {
	const db = await new Promise((resolve, reject) => {
		const req = indexedDB.open(name, 1);
		req.onupgradeneeded = () => {
			for (const store of ['files', 'folders']) {
				req.result.createObjectStore(store, { keyPath: 'path' }).createIndex('parentPath', 'parentPath', { unique: false });
			}
		};
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
	const tx = db.transaction(['files', 'folders'], 'readwrite');
	const now = Date.now();
	tx.objectStore('folders').put({ path: 'idx', parentPath: '', createdAt: now });
	tx.objectStore('folders').put({ path: 'idx/sub', parentPath: 'idx', createdAt: now });
	const text = (s) => new TextEncoder().encode(s).buffer;
	tx.objectStore('files').add({ path: 'idx/index.json', parentPath: 'idx', content: text('{"version":1}'), createdAt: now, updatedAt: now });
	tx.objectStore('files').add({ path: 'top.txt', parentPath: '.', content: text('top'), createdAt: now, updatedAt: now });
	await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); });
	db.close();
	return true;
}`

// readRecords returns every record of a store, as Vectra would see them,
// with content decoded as UTF-8.
const readRecords = `async (name, store) => {
	const db = await new Promise((resolve, reject) => {
		const req = indexedDB.open(name, 1);
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
	const all = await new Promise((resolve, reject) => {
		const req = db.transaction(store, 'readonly').objectStore(store).getAll();
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
	db.close();
	return JSON.stringify(all.map((r) => ({
		path: r.path,
		parentPath: r.parentPath,
		content: r.content === undefined ? undefined : (r.content instanceof ArrayBuffer ? 'ArrayBuffer:' : 'other:') + new TextDecoder().decode(r.content),
		dates: typeof r.createdAt === 'number' && (r.updatedAt === undefined || typeof r.updatedAt === 'number'),
	})));
}`

func TestReadsVectraRecords(t *testing.T) {
	ctx := t.Context()
	s := freshStorage(t)
	rawJS(t, putVectraRecords, s.Name())

	got, err := s.ReadFile(ctx, "idx/index.json")
	if err != nil || string(got) != `{"version":1}` {
		t.Errorf("ReadFile(idx/index.json) = %q, %v", got, err)
	}
	list, err := s.ListFiles(ctx, "idx", core.ListAll)
	wantList := []core.FileDetails{
		{Name: "index.json", Path: "idx/index.json", FileType: "json"},
		{Name: "sub", Path: "idx/sub", IsFolder: true, FileType: core.FileTypeFolder},
	}
	if err != nil || !slices.Equal(list, wantList) {
		t.Errorf("ListFiles(idx) = %+v, %v; want %+v", list, err, wantList)
	}
	// Vectra records top-level files under ".", folders under "": both are
	// listed, which Vectra's own storage cannot do.
	top, err := s.ListFiles(ctx, "", core.ListAll)
	wantTop := []core.FileDetails{
		{Name: "idx", Path: "idx", IsFolder: true, FileType: core.FileTypeFolder},
		{Name: "top.txt", Path: "top.txt", FileType: "txt"},
	}
	if err != nil || !slices.Equal(top, wantTop) {
		t.Errorf("ListFiles(\"\") = %+v, %v; want %+v", top, err, wantTop)
	}
	if err := s.CreateFile(ctx, "idx/index.json", []byte("x")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateFile over Vectra's file = %v, want fs.ErrExist", err)
	}
}

func TestWritesVectraRecords(t *testing.T) {
	ctx := t.Context()
	s := freshStorage(t)
	mustNoErr(t, s.CreateFolder(ctx, "idx/sub"))
	mustNoErr(t, s.CreateFile(ctx, "idx/index.json", []byte(`{"version":1}`)))
	mustNoErr(t, s.UpsertFile(ctx, "top.txt", []byte("top")))
	s.Close()

	files := rawJS(t, readRecords, s.Name(), "files").String()
	wantFiles := `[{"path":"idx/index.json","parentPath":"idx","content":"ArrayBuffer:{\"version\":1}","dates":true},` +
		`{"path":"top.txt","parentPath":".","content":"ArrayBuffer:top","dates":true}]`
	if files != wantFiles {
		t.Errorf("files store:\n got %s\nwant %s", files, wantFiles)
	}
	folders := rawJS(t, readRecords, s.Name(), "folders").String()
	wantFolders := `[{"path":"idx","parentPath":"","dates":true},{"path":"idx/sub","parentPath":"idx","dates":true}]`
	if folders != wantFolders {
		t.Errorf("folders store:\n got %s\nwant %s", folders, wantFolders)
	}
}

func TestCancelledWriteKeepsTheOldFile(t *testing.T) {
	s := freshStorage(t)
	mustNoErr(t, s.UpsertFile(t.Context(), "f.bin", []byte("old")))
	ctx, cancel := context.WithCancel(t.Context())
	// The goroutine runs once UpsertFile waits for its transaction, so the
	// cancellation lands while the write is under way.
	go cancel()
	err := s.UpsertFile(ctx, "f.bin", make([]byte, 8<<20))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("UpsertFile with a context cancelled mid-write = %v, want context.Canceled", err)
	}
	got, err := s.ReadFile(t.Context(), "f.bin")
	if err != nil || string(got) != "old" {
		t.Errorf("after the cancelled write ReadFile = %d bytes %q, %v; want the old content", len(got), got[:min(len(got), 8)], err)
	}
}

func TestWriteFilesIsAllOrNothing(t *testing.T) {
	ctx := t.Context()
	s := freshStorage(t)
	mustNoErr(t, s.CreateFolder(ctx, "a"))
	err := s.WriteFiles(ctx, []core.FileWrite{
		{Path: "a/1.json", Content: []byte("1")},
		{Path: "missing/2.json", Content: []byte("2")},
	})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFiles with a missing folder = %v, want fs.ErrNotExist", err)
	}
	if ok, err := s.PathExists(ctx, "a/1.json"); ok || err != nil {
		t.Errorf("a/1.json exists = %v, %v after the failed group; want nothing written", ok, err)
	}
}

func TestCloseAndDestroy(t *testing.T) {
	ctx := t.Context()
	s := freshStorage(t)
	mustNoErr(t, s.UpsertFile(ctx, "f.txt", []byte("x")))
	other := storageidb.New(&storageidb.Options{Name: s.Name()})
	if got, err := other.ReadFile(ctx, "f.txt"); err != nil || string(got) != "x" {
		t.Fatalf("second storage ReadFile = %q, %v", got, err)
	}
	// Destroy waits for no one: the other connection closes when asked.
	destroyer := storageidb.New(&storageidb.Options{Name: s.Name()})
	mustNoErr(t, destroyer.Destroy(ctx))
	if _, err := destroyer.ReadFile(ctx, "f.txt"); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadFile after Destroy = %v, want fs.ErrClosed", err)
	}
	if _, err := other.ReadFile(ctx, "f.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("another storage's ReadFile after Destroy = %v, want fs.ErrNotExist (a fresh database)", err)
	}
	mustNoErr(t, other.Close())
	if err := other.UpsertFile(ctx, "f.txt", nil); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("UpsertFile after Close = %v, want fs.ErrClosed", err)
	}
}

func TestDefaultName(t *testing.T) {
	if got := storageidb.New(nil).Name(); got != "vectra-db" {
		t.Errorf("default database name = %q, want Vectra's vectra-db", got)
	}
}

func mustNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
