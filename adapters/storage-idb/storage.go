//go:build js && wasm

package storageidb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"syscall/js"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// DefaultName is the database Vectra's IndexedDBStorage uses by default.
const DefaultName = "vectra-db"

// Options configures New. The zero value is valid.
type Options struct {
	// Name is the IndexedDB database; "" means DefaultName, "vectra-db".
	Name string
}

// IndexedDBStorage keeps files and folders in an IndexedDB database of the
// page's origin, in Vectra's layout. Create one with [New]; the zero value
// is not ready for use.
type IndexedDBStorage struct {
	name string
	// sem admits one goroutine at a time to open the connection, waiting
	// with its ctx.
	sem    chan struct{}
	conn   atomic.Pointer[connection]
	closed atomic.Bool
}

// connection is an open database and the handler that closes it when
// another connection deletes or upgrades the database.
type connection struct {
	db            js.Value
	onVersionChng js.Func
}

var (
	_ core.FileStorage = (*IndexedDBStorage)(nil)
	_ core.GroupWriter = (*IndexedDBStorage)(nil)
)

var (
	errIsFolder    = errors.New("is a folder")
	errIsFile      = errors.New("is a file")
	errParentFile  = errors.New("a parent is a file")
	errDeletesRoot = fmt.Errorf("cannot delete a root folder: %w", core.ErrInvalidArgument)
)

// New returns the storage over the database opts.Name. Nothing is opened
// until first use; the database and its stores are created then if
// missing. nil opts are the defaults (database DefaultName).
func New(opts *Options) *IndexedDBStorage {
	var name string
	if opts != nil {
		name = opts.Name
	}
	if name == "" {
		name = DefaultName
	}
	return &IndexedDBStorage{name: name, sem: make(chan struct{}, 1)}
}

// Name returns the database's name.
func (s *IndexedDBStorage) Name() string { return s.name }

// db returns the open connection, opening it on first use and again after
// another connection deleted the database.
func (s *IndexedDBStorage) db(ctx context.Context) (js.Value, error) {
	if err := ctx.Err(); err != nil {
		return js.Value{}, err
	}
	if s.closed.Load() {
		return js.Value{}, fmt.Errorf("storageidb: database %q: %w", s.name, fs.ErrClosed)
	}
	if c := s.conn.Load(); c != nil {
		return c.db, nil
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		return js.Value{}, ctx.Err()
	}
	if c := s.conn.Load(); c != nil {
		return c.db, nil
	}
	db, err := openDB(ctx, s.name)
	if err != nil {
		return js.Value{}, fmt.Errorf("storageidb: %w", err)
	}
	c := &connection{db: db}
	c.onVersionChng = js.FuncOf(func(js.Value, []js.Value) any {
		if s.conn.CompareAndSwap(c, nil) {
			c.close()
		}
		return nil
	})
	db.Set("onversionchange", c.onVersionChng)
	if s.closed.Load() { // Close ran while this goroutine was opening
		c.close()
		return js.Value{}, fmt.Errorf("storageidb: database %q: %w", s.name, fs.ErrClosed)
	}
	s.conn.Store(c)
	return db, nil
}

func (c *connection) close() {
	c.db.Call("close")
	c.db.Set("onversionchange", js.Null())
	c.onVersionChng.Release()
}

// transact runs one transaction of the database.
func (s *IndexedDBStorage) transact(ctx context.Context, mode string, body func(t *txn)) error {
	db, err := s.db(ctx)
	if err != nil {
		return err
	}
	return transact(ctx, db, mode, body)
}

// Close closes the connection to the database; the data stays. Every
// later call fails with an error wrapping fs.ErrClosed. Transactions under
// way finish first.
func (s *IndexedDBStorage) Close() error {
	s.closed.Store(true)
	if c := s.conn.Swap(nil); c != nil {
		c.close()
	}
	return nil
}

// Destroy closes the storage and deletes its database with everything in
// it. It waits while other connections to the database are open (other
// IndexedDBStorage values of the page close theirs when asked to), until
// ctx ends.
func (s *IndexedDBStorage) Destroy(ctx context.Context) error {
	if err := s.Close(); err != nil {
		return err
	}
	if err := deleteDB(ctx, s.name); err != nil {
		return fmt.Errorf("storageidb: destroy %q: %w", s.name, err)
	}
	return nil
}

// key checks ctx and returns the normalised key of p.
func key(ctx context.Context, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return pathutil.Normalize(p), nil
}

func isRoot(k string) bool { return k == "" || k == "/" }

// parent returns the folder that holds k: "" for top-level relative paths,
// "/" for top-level absolute ones.
func parent(k string) string {
	i := strings.LastIndexByte(k, '/')
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return k[:i]
}

// baseName is the last segment of k.
func baseName(k string) string { return k[strings.LastIndexByte(k, '/')+1:] }

// parentPaths are the parentPath values under which the children of the
// folder k may be recorded: Vectra records top-level files under "." and
// top-level folders under "", and absolute top-level files under "." too.
func parentPaths(k string) []string {
	switch k {
	case "":
		return []string{"", "."}
	case "/":
		return []string{"/", ".", ""}
	}
	return []string{k}
}

// fileRecord is a record of the files store, as Vectra writes it.
func fileRecord(k string, content []byte, now float64) js.Value {
	p := parent(k)
	if isRoot(p) {
		p = "." // Vectra's dirname of a top-level path
	}
	u8 := js.Global().Get("Uint8Array").New(len(content))
	js.CopyBytesToJS(u8, content)
	rec := js.Global().Get("Object").New()
	rec.Set("path", k)
	rec.Set("parentPath", p)
	rec.Set("content", u8.Get("buffer"))
	rec.Set("createdAt", now)
	rec.Set("updatedAt", now)
	return rec
}

// folderRecord is a record of the folders store, as Vectra writes it.
func folderRecord(k string, now float64) js.Value {
	rec := js.Global().Get("Object").New()
	rec.Set("path", k)
	rec.Set("parentPath", parent(k))
	rec.Set("createdAt", now)
	return rec
}

func now() float64 { return js.Global().Get("Date").Call("now").Float() }

// recordContent returns the bytes of a file record's content: an ArrayBuffer as
// Vectra writes it, a typed array or a string.
func recordContent(rec js.Value) []byte {
	c := rec.Get("content")
	var u8 js.Value
	switch {
	case c.Type() == js.TypeString:
		return []byte(c.String())
	case c.InstanceOf(js.Global().Get("ArrayBuffer")):
		u8 = js.Global().Get("Uint8Array").New(c)
	case js.Global().Get("ArrayBuffer").Call("isView", c).Bool():
		u8 = js.Global().Get("Uint8Array").New(c.Get("buffer"), c.Get("byteOffset"), c.Get("byteLength"))
	default:
		return []byte{}
	}
	b := make([]byte, u8.Get("length").Int())
	js.CopyBytesToGo(b, u8)
	return b
}

func exists(rec js.Value) bool { return !rec.IsUndefined() && !rec.IsNull() }

// ancestors returns k's ancestors below the roots, nearest last.
func ancestors(k string) []string {
	var out []string
	for p := parent(k); !isRoot(p); p = parent(p) {
		out = append(out, p)
	}
	slices.Reverse(out)
	return out
}

// write is one file of a write transaction.
type write struct {
	path, key string
	content   []byte
}

// writeFiles stores every file in one transaction after checking, in
// that transaction, that no folder is at its path, that its parent folder
// exists and, when create is set, that no file is there either.
func (s *IndexedDBStorage) writeFiles(ctx context.Context, op string, files []write, create bool) error {
	err := s.transact(ctx, "readwrite", func(t *txn) {
		ts := now()
		pending := len(files)
		for _, f := range files {
			s.checkWritable(t, f, create, func() {
				if pending--; pending > 0 {
					return
				}
				for _, f := range files {
					if create {
						t.add(filesStore, fileRecord(f.key, f.content, ts))
					} else {
						t.put(filesStore, fileRecord(f.key, f.content, ts))
					}
				}
			})
		}
	})
	var dom *DOMError
	if create && errors.As(err, &dom) && dom.Name == "ConstraintError" {
		err = fmt.Errorf("%w: %w", fs.ErrExist, err)
	}
	if err != nil {
		return fmt.Errorf("storageidb: %s %q: %w", op, files[0].path, err)
	}
	return nil
}

// checkWritable reads what is at f's path and its parent, fails t if f
// cannot be written there, and else calls then.
func (s *IndexedDBStorage) checkWritable(t *txn, f write, create bool, then func()) {
	if isRoot(f.key) {
		t.fail(fs.ErrExist)
		return
	}
	var folder, file, parentFolder js.Value
	p := parent(f.key)
	decide := func(parentFile js.Value) {
		switch {
		case exists(folder) && create:
			t.fail(fs.ErrExist)
		case exists(folder):
			t.fail(errIsFolder)
		case exists(file) && create:
			t.fail(fs.ErrExist)
		case exists(parentFile):
			t.fail(errParentFile)
		case !isRoot(p) && !exists(parentFolder):
			t.fail(fmt.Errorf("parent folder %q: %w", p, fs.ErrNotExist))
		default:
			then()
		}
	}
	t.get(foldersStore, f.key, func(r js.Value) { folder = r })
	if isRoot(p) {
		t.get(filesStore, f.key, func(r js.Value) { file = r; decide(js.Undefined()) })
		return
	}
	t.get(filesStore, f.key, func(r js.Value) { file = r })
	t.get(foldersStore, p, func(r js.Value) { parentFolder = r })
	t.get(filesStore, p, decide) // requests complete in order: this one last
}

// CreateFile stores content as a new file. It fails with fs.ErrExist if a
// file or folder is at filePath, and with fs.ErrNotExist if the parent
// folder is missing. The checks and the write are one transaction.
func (s *IndexedDBStorage) CreateFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	return s.writeFiles(ctx, "create file", []write{{filePath, k, content}}, true)
}

// UpsertFile stores content as the file at filePath, replacing any file
// there in one transaction: readers see the old content or the new. It
// fails if a folder is there, and with fs.ErrNotExist if the parent
// folder is missing.
func (s *IndexedDBStorage) UpsertFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	return s.writeFiles(ctx, "upsert file", []write{{filePath, k, content}}, false)
}

// WriteFiles creates or replaces every file in one transaction: all are
// written or, on error, none.
func (s *IndexedDBStorage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(files) == 0 {
		return nil
	}
	ws := make([]write, len(files))
	for i, f := range files {
		ws[i] = write{f.Path, pathutil.Normalize(f.Path), f.Content}
	}
	return s.writeFiles(ctx, "write files", ws, false)
}

// ReadFile returns the file's content (empty, not nil, for an empty file).
// It fails with fs.ErrNotExist if nothing is at filePath.
func (s *IndexedDBStorage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.transact(ctx, "readonly", func(t *txn) {
		t.get(filesStore, k, func(file js.Value) {
			if exists(file) {
				out = recordContent(file)
				return
			}
			t.get(foldersStore, k, func(folder js.Value) {
				if exists(folder) || isRoot(k) {
					t.fail(errIsFolder)
				} else {
					t.fail(fs.ErrNotExist)
				}
			})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("storageidb: read file %q: %w", filePath, err)
	}
	return out, nil
}

// DeleteFile removes the file at filePath; nothing there is no error. It
// fails if a folder is there.
func (s *IndexedDBStorage) DeleteFile(ctx context.Context, filePath string) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	err = s.transact(ctx, "readwrite", func(t *txn) {
		if isRoot(k) {
			t.fail(errIsFolder)
			return
		}
		t.get(foldersStore, k, func(folder js.Value) {
			if exists(folder) {
				t.fail(errIsFolder)
				return
			}
			t.del(filesStore, js.ValueOf(k))
		})
	})
	if err != nil {
		return fmt.Errorf("storageidb: delete file %q: %w", filePath, err)
	}
	return nil
}

// PathExists reports whether a file or folder is at p.
func (s *IndexedDBStorage) PathExists(ctx context.Context, p string) (bool, error) {
	_, err := s.GetDetails(ctx, p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// CreateFolder creates the folder at folderPath and any missing parent in
// one transaction; an existing folder is no error. It fails with
// fs.ErrExist if a file is at folderPath, and if one of its parents is a
// file.
func (s *IndexedDBStorage) CreateFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	err = s.transact(ctx, "readwrite", func(t *txn) {
		if isRoot(k) {
			return
		}
		chain := append(ancestors(k), k)
		folders := make([]js.Value, len(chain))
		files := make([]js.Value, len(chain))
		for i, p := range chain {
			t.get(foldersStore, p, func(r js.Value) { folders[i] = r })
			t.get(filesStore, p, func(r js.Value) {
				files[i] = r
				if i < len(chain)-1 {
					return
				}
				ts := now()
				for i, p := range chain {
					switch {
					case exists(files[i]) && p == k:
						t.fail(fs.ErrExist)
						return
					case exists(files[i]):
						t.fail(errParentFile)
						return
					case !exists(folders[i]):
						t.put(foldersStore, folderRecord(p, ts))
					}
				}
			})
		}
	})
	if err != nil {
		return fmt.Errorf("storageidb: create folder %q: %w", folderPath, err)
	}
	return nil
}

// DeleteFolder removes the folder at folderPath and everything below it
// in one transaction; nothing there is no error. It fails if a file is
// there, and with core.ErrInvalidArgument for the roots "" and "/".
func (s *IndexedDBStorage) DeleteFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	if isRoot(k) {
		return fmt.Errorf("storageidb: delete folder %q: %w", folderPath, errDeletesRoot)
	}
	err = s.transact(ctx, "readwrite", func(t *txn) {
		t.get(filesStore, k, func(file js.Value) {
			if exists(file) {
				t.fail(errIsFile)
				return
			}
			below := keyRangeBelow(k)
			t.del(filesStore, below)
			t.del(foldersStore, below)
			t.del(foldersStore, js.ValueOf(k))
		})
	})
	if err != nil {
		return fmt.Errorf("storageidb: delete folder %q: %w", folderPath, err)
	}
	return nil
}

// details describes the entry at the key k.
func details(k string, folder bool) core.FileDetails {
	name := baseName(k)
	if isRoot(k) {
		name = ""
	}
	if folder {
		return core.FileDetails{Name: name, Path: k, IsFolder: true, FileType: core.FileTypeFolder}
	}
	return core.FileDetails{Name: name, Path: k, FileType: core.GetFileType(name)}
}

// lookup passes whether a file or a folder is at k to then.
func lookup(t *txn, k string, then func(file, folder bool)) {
	if isRoot(k) {
		then(false, true)
		return
	}
	var file js.Value
	t.get(filesStore, k, func(r js.Value) { file = r })
	t.get(foldersStore, k, func(r js.Value) { then(exists(file), exists(r)) })
}

// GetDetails describes the file or folder at p; fs.ErrNotExist if nothing
// is there.
func (s *IndexedDBStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	k, err := key(ctx, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	var d core.FileDetails
	err = s.transact(ctx, "readonly", func(t *txn) {
		lookup(t, k, func(file, folder bool) {
			switch {
			case file:
				d = details(k, false)
			case folder:
				d = details(k, true)
			default:
				t.fail(fs.ErrNotExist)
			}
		})
	})
	if err != nil {
		return core.FileDetails{}, fmt.Errorf("storageidb: get details %q: %w", p, err)
	}
	return d, nil
}

// ListFiles lists the immediate children of the folder at folderPath,
// sorted by name, keeping files, folders or both as filter says ("" is
// ListAll). Top-level entries are listed too, which Vectra's
// IndexedDBStorage cannot do. It fails with fs.ErrNotExist if the folder
// is missing, and with core.ErrInvalidArgument for an unknown filter.
func (s *IndexedDBStorage) ListFiles(ctx context.Context, folderPath string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	k, err := key(ctx, folderPath)
	if err != nil {
		return nil, err
	}
	wantFiles, wantFolders, err := filter.Selects()
	if err != nil {
		return nil, fmt.Errorf("storageidb: list files %q: %w", folderPath, err)
	}
	var out []core.FileDetails
	err = s.transact(ctx, "readonly", func(t *txn) {
		lookup(t, k, func(file, folder bool) {
			switch {
			case file:
				t.fail(errIsFile)
				return
			case !folder:
				t.fail(fs.ErrNotExist)
				return
			}
			collect := func(isFolder bool) func([]js.Value) {
				return func(records []js.Value) {
					for _, r := range records {
						if p := r.Get("path"); p.Type() == js.TypeString && parent(p.String()) == k {
							out = append(out, details(p.String(), isFolder))
						}
					}
				}
			}
			for _, pp := range parentPaths(k) {
				if wantFiles {
					t.children(filesStore, pp, collect(false))
				}
				if wantFolders {
					t.children(foldersStore, pp, collect(true))
				}
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("storageidb: list files %q: %w", folderPath, err)
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b core.FileDetails) bool { return a.Path == b.Path }), nil
}
