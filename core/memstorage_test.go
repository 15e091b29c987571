package core

import (
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/foliovec/folio/core/pathutil"
)

// memTestStorage is the storage of core's tests: a MemoryStorage seen
// through the FileStorage port alone (no lock, no versions, no group
// writes), which records calls, fails the writes or deletes a test asks it
// to, and can crash: from the Nth mutation on (writes and deletes counted
// from 1), every mutation fails, as if the process had died at that point.
type memTestStorage struct {
	mem *MemoryStorage

	mu      sync.Mutex
	reads   map[string]int
	writes  []string // paths written, in order
	written int      // bytes written
	deletes []string // paths deleted, in order

	failWrite  func(path string) error
	failDelete func(path string) error
	crashAt    int // 0: never
	mutations  int
}

var _ FileStorage = (*memTestStorage)(nil)

var errMemTestCrash = errors.New("test storage: crashed")

func newMemTestStorage() *memTestStorage {
	return &memTestStorage{mem: NewMemoryStorage(), reads: map[string]int{}}
}

// mutation counts a mutation of p and reports whether it must fail, by a
// crash or by fail (failWrite or failDelete).
func (m *memTestStorage) mutation(p string, fail func(string) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mutations++
	if m.crashAt > 0 && m.mutations >= m.crashAt {
		return errMemTestCrash
	}
	if fail != nil {
		return fail(p)
	}
	return nil
}

func (m *memTestStorage) write(ctx context.Context, p string, content []byte, store func(context.Context, string, []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.mutation(p, m.failWrite); err != nil {
		return err
	}
	if err := store(ctx, p, content); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes = append(m.writes, p)
	m.written += len(content)
	return nil
}

// bytesWritten is how many bytes the storage's writes have stored.
func (m *memTestStorage) bytesWritten() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.written
}

// totalBytes is the size of the files directly in folder.
func (m *memTestStorage) totalBytes(folder string) int {
	n := 0
	for _, name := range m.fileNames(folder) {
		b, _ := m.file(pathutil.Join(folder, name))
		n += len(b)
	}
	return n
}

func (m *memTestStorage) CreateFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, m.mem.CreateFile)
}

func (m *memTestStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, m.mem.UpsertFile)
}

func (m *memTestStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.reads[p]++
	m.mu.Unlock()
	return m.mem.ReadFile(ctx, p)
}

func (m *memTestStorage) DeleteFile(ctx context.Context, p string) error {
	if err := m.mutation(p, m.failDelete); err != nil {
		return err
	}
	if err := m.mem.DeleteFile(ctx, p); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deletes = append(m.deletes, p)
	return nil
}

func (m *memTestStorage) PathExists(ctx context.Context, p string) (bool, error) {
	return m.mem.PathExists(ctx, p)
}

func (m *memTestStorage) CreateFolder(ctx context.Context, p string) error {
	return m.mem.CreateFolder(ctx, p)
}

func (m *memTestStorage) DeleteFolder(ctx context.Context, p string) error {
	return m.mem.DeleteFolder(ctx, p)
}

func (m *memTestStorage) GetDetails(ctx context.Context, p string) (FileDetails, error) {
	return m.mem.GetDetails(ctx, p)
}

func (m *memTestStorage) ListFiles(ctx context.Context, folder string, filter ListFilesFilter) ([]FileDetails, error) {
	return m.mem.ListFiles(ctx, folder, filter)
}

// fileNames lists the names of the files directly in folder, sorted.
func (m *memTestStorage) fileNames(folder string) []string {
	fds, _ := m.ListFiles(context.Background(), folder, ListFilesOnly)
	out := []string{}
	for _, fd := range fds {
		out = append(out, fd.Name)
	}
	return out
}

func (m *memTestStorage) file(p string) ([]byte, bool) {
	b, err := m.mem.ReadFile(context.Background(), p)
	return b, err == nil
}

func (m *memTestStorage) readCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads[p]
}

// writeCount is the number of successful writes of p.
func (m *memTestStorage) writeCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, w := range m.writes {
		if w == p {
			n++
		}
	}
	return n
}

func (m *memTestStorage) wrote(p string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.writes, p)
}

// clone copies the files and folders (not the call records or failures).
func (m *memTestStorage) clone() *memTestStorage {
	c := newMemTestStorage()
	c.mem.tree = m.mem.tree.Clone()
	return c
}

// put stores a file as a test arranges it, creating its folder, unrecorded
// and never failed.
func (m *memTestStorage) put(p string, content []byte) {
	ctx := context.Background()
	if err := m.mem.CreateFolder(ctx, pathutil.Dirname(p)); err != nil {
		panic(err)
	}
	if err := m.mem.UpsertFile(ctx, p, content); err != nil {
		panic(err)
	}
}

// remove deletes a file as a test arranges it, unrecorded.
func (m *memTestStorage) remove(p string) {
	if err := m.mem.DeleteFile(context.Background(), p); err != nil {
		panic(err)
	}
}

// snapshot is every file below the top level with its content.
func (m *memTestStorage) snapshot() map[string][]byte {
	out := map[string][]byte{}
	var walk func(folder string)
	walk = func(folder string) {
		entries, _ := m.mem.ListFiles(context.Background(), folder, ListAll)
		for _, e := range entries {
			if e.IsFolder {
				walk(e.Path)
				continue
			}
			out[e.Path], _ = m.file(e.Path)
		}
	}
	walk("")
	return out
}

// mappingTestStorage is a memTestStorage that maps files (FileMapper): a
// mapping is a copy of the file in memory aligned as a mapping is, and
// Close overwrites it with NaNs, so that a read after the engine let it go
// shows in query results. open counts the mappings not closed.
type mappingTestStorage struct {
	*memTestStorage
	open     atomic.Int64
	maps     atomic.Int64          // MapFile calls
	released atomic.Int64          // ReleasePages calls
	readAts  atomic.Int64          // ReadAt calls
	readAtB  atomic.Int64          // bytes ReadAt read
	readErr  atomic.Pointer[error] // when set, what ReadAt fails with
}

var _ FileMapper = (*mappingTestStorage)(nil)

func (m *mappingTestStorage) MapFile(ctx context.Context, p string) (MappedFile, error) {
	raw, err := m.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	words := make([]float32, (len(raw)+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(raw))
	copy(b, raw)
	m.open.Add(1)
	m.maps.Add(1)
	return &testMapping{st: m, b: b, words: words}, nil
}

type testMapping struct {
	st    *mappingTestStorage
	once  sync.Once
	b     []byte
	words []float32
}

func (t *testMapping) Bytes() []byte { return t.b }

// ReadAt reads the file's bytes as they were mapped, counting the call; a
// mapping closed reads NaNs, as its bytes do.
func (t *testMapping) ReadAt(p []byte, off int64) (int, error) {
	t.st.readAts.Add(1)
	if err := t.st.readErr.Load(); err != nil {
		return 0, *err
	}
	if off < 0 || off > int64(len(t.b)) {
		return 0, io.EOF
	}
	n := copy(p, t.b[off:])
	t.st.readAtB.Add(int64(n))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ReleasePages counts the call; the bytes stay as they are, as a released
// mapping's read back from the file do.
func (t *testMapping) ReleasePages() error {
	t.st.released.Add(1)
	return nil
}

func (t *testMapping) Close() error {
	t.once.Do(func() {
		for i := range t.words {
			t.words[i] = float32(math.NaN())
		}
		t.st.open.Add(-1)
	})
	return nil
}
