package storagetest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/storagetest"
	"github.com/foliovec/folio/core"
)

var allCaps = storagetest.Capabilities{AtomicReplace: true, Persistent: true, Confined: true}

// refHarness makes a fresh reference storage with the given bug ("" for
// none); Reopen gives a second value over the same data.
func refHarness(bug string) func(t testing.TB) storagetest.Harness {
	return func(t testing.TB) storagetest.Harness {
		data := confinedStorage{core.NewMemoryStorage()}
		return storagetest.Harness{
			Storage: newBroken(data, bug),
			Reopen: func() core.FileStorage {
				if bug == "reopen forgets" {
					return confinedStorage{core.NewMemoryStorage()}
				}
				return newBroken(data, bug)
			},
		}
	}
}

// TestReferenceStorage runs the suite as adapters do, on a storage that
// keeps every rule: the suite has no false alarms (and core.MemoryStorage
// keeps every rule).
func TestReferenceStorage(t *testing.T) {
	storagetest.Run(t, refHarness(""), allCaps)
}

func TestCheckPassesTheReferenceStorage(t *testing.T) {
	if err := storagetest.Check(t.Context(), refHarness(""), allCaps); err != nil {
		t.Fatalf("Check of a storage that keeps every rule:\n%v", err)
	}
}

// violatedRules returns the rule names of Check's violations.
func violatedRules(err error) map[string]bool {
	rules := map[string]bool{}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		return rules
	}
	for _, v := range joined.Unwrap() {
		msg := strings.TrimPrefix(v.Error(), "storagetest: ")
		rule, _, _ := strings.Cut(msg, ": ")
		rules[rule] = true
	}
	return rules
}

// TestCheckFindsEachBrokenRule tests the tester: each broken storage must be
// reported under the rule it breaks.
func TestCheckFindsEachBrokenRule(t *testing.T) {
	bugs := []struct {
		bug, rule string
	}{
		{"create overwrites", "CreateFile of an existing file fails with fs.ErrExist and keeps the old content"},
		{"create is not exclusive", "concurrent CreateFile of one path lets exactly one succeed, the others fail with fs.ErrExist"},
		{"writes need no parent", "CreateFile in a missing folder fails with fs.ErrNotExist and creates nothing"},
		{"read of missing is nil, nil", "ReadFile of a missing path fails with fs.ErrNotExist"},
		{"writes alias the caller's bytes", "writes keep their own copy of the caller's bytes"},
		{"reads share the stored bytes", "ReadFile returns a copy the caller may change"},
		{"delete of missing fails", "DeleteFile of a missing path is not an error"},
		{"folders get no parents", "CreateFolder creates missing parents"},
		{"delete folder is shallow", "DeleteFolder removes the folder and everything below it"},
		{"delete folder matches name prefixes", "DeleteFolder keeps siblings whose names share its prefix"},
		{"files have no type", "GetDetails describes a file, with its type from its extension"},
		{"list ignores the filter", "ListFiles honours the files, folders and all filters"},
		{"list is not sorted", "ListFiles lists immediate children only, sorted by name, with their details"},
		{"raw paths", "equivalent spellings of a path name the same file or folder"},
		{"ignores context", "a cancelled context stops every method with context.Canceled, before any change"},
		{"details panic", "GetDetails describes a folder as FileTypeFolder, whatever its name"},
		{"upsert tears", "readers during UpsertFile see the whole old or new content"},
		{"reopen forgets", "a reopened storage sees the files and folders written before"},
		{"reopen forgets", "a LocalIndex over the storage keeps its items, side-cars and query results across reopens"},
		{"escapes its root", "paths that leave the root fail with core.ErrInvalidArgument"},
		{"group write drops the last file", "WriteFiles writes every file, new or replaced, byte for byte"},
		{"group write aliases the caller's bytes", "WriteFiles keeps its own copy of the caller's bytes"},
		{"lock is not exclusive", "LockFolder excludes a second LockFolder of the folder until unlock"},
		{"lock is not exclusive", "LockFolder lets one holder at a time into the folder among many"},
		{"lock is one for all folders", "LockFolder of one folder leaves another folder free"},
		{"version is the content", "FileVersion changes with every write of the file, even of the same bytes"},
		{"stream write drops the last byte", "UpsertFileFrom writes what its function writes, new or replaced, byte for byte"},
		{"cold stream write drops its last block", "UpsertFileFrom of a cold file (core.ColdFileHint) writes what its function writes, byte for byte"},
		{"stream write keeps a failed write", "UpsertFileFrom whose function fails returns its error and leaves the file as it was"},
		{"map drops the last byte", "MapFile maps what ReadFile returns"},
		{"map follows the file", "a mapping keeps its bytes after its file is replaced or deleted"},
		{"releasing pages zeroes them", "a mapping keeps its bytes after ReleasePages, and ReleasePages after Close does nothing"},
		{"range is a byte late", "OpenFileRange reads the parts of what ReadFile returns, with its size"},
		{"batch skips its last part", "OpenFileRange reads the parts of what ReadFile returns, with its size"},
		{"range past the end reads zeros", "a range past the end of the file fails with io.ErrUnexpectedEOF"},
	}
	for _, tt := range bugs {
		t.Run(tt.bug, func(t *testing.T) {
			t.Parallel()
			err := storagetest.Check(t.Context(), refHarness(tt.bug), allCaps)
			if !violatedRules(err)[tt.rule] {
				t.Errorf("Check of a storage whose bug is %q did not report rule %q; it reported:\n%v", tt.bug, tt.rule, err)
			}
		})
	}
}

// TestCheckSkipsUnclaimedCapabilities: a storage that breaks only a
// capability it does not claim passes.
func TestCheckSkipsUnclaimedCapabilities(t *testing.T) {
	tests := []struct {
		bug  string
		caps storagetest.Capabilities
	}{
		{"upsert tears", storagetest.Capabilities{Persistent: true, Confined: true}},
		{"reopen forgets", storagetest.Capabilities{AtomicReplace: true, Confined: true}},
		{"escapes its root", storagetest.Capabilities{AtomicReplace: true, Persistent: true}},
	}
	for _, tt := range tests {
		t.Run(tt.bug, func(t *testing.T) {
			t.Parallel()
			if err := storagetest.Check(t.Context(), refHarness(tt.bug), tt.caps); err != nil {
				t.Errorf("Check with the broken capability unclaimed:\n%v", err)
			}
		})
	}
}

func TestCheckReportsAPersistentClaimWithoutReopen(t *testing.T) {
	noReopen := func(t testing.TB) storagetest.Harness { return storagetest.Harness{Storage: core.NewMemoryStorage()} }
	rule := "a reopened storage sees the files and folders written before"
	if err := storagetest.Check(t.Context(), noReopen, allCaps); !violatedRules(err)[rule] {
		t.Errorf("Check did not report the missing Reopen under %q; it reported:\n%v", rule, err)
	}
}

func TestCheckReportsHarnessFailures(t *testing.T) {
	failing := func(t testing.TB) storagetest.Harness {
		t.Fatalf("cannot make the storage")
		return storagetest.Harness{}
	}
	err := storagetest.Check(t.Context(), failing, storagetest.Capabilities{})
	if err == nil || !strings.Contains(err.Error(), "cannot make the storage") {
		t.Errorf("Check with a failing harness = %v, want the harness's failure", err)
	}
}

func TestCheckStopsOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := 0
	counting := func(t testing.TB) storagetest.Harness {
		calls++
		return storagetest.Harness{Storage: core.NewMemoryStorage()}
	}
	err := storagetest.Check(ctx, counting, storagetest.Capabilities{})
	if !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("Check with a cancelled context = %v after %d harnesses, want context.Canceled and none", err, calls)
	}
}

func TestCheckTempDirIsRemovedAfterTheCase(t *testing.T) {
	var dirs []string
	withDir := func(t testing.TB) storagetest.Harness {
		dirs = append(dirs, t.TempDir())
		return storagetest.Harness{Storage: core.NewMemoryStorage()}
	}
	if err := storagetest.Check(t.Context(), withDir, storagetest.Capabilities{}); err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("the harness was never called")
	}
	for _, d := range dirs {
		if exists(d) {
			t.Errorf("TempDir %s still exists after Check", d)
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// greedyRemover is the in-memory storage with a RemoveTempFiles that takes
// every file of the folder for a temporary one.
type greedyRemover struct{ *core.MemoryStorage }

func (g greedyRemover) RemoveTempFiles(ctx context.Context, folder string, _ time.Duration) (int, error) {
	files, err := g.ListFiles(ctx, folder, core.ListFilesOnly)
	for _, f := range files {
		_ = g.DeleteFile(ctx, f.Path)
	}
	return len(files), err
}

// hastyRemover is the in-memory storage whose streamed writes go through
// a temporary file that RemoveTempFiles removes whatever its age: a write
// in progress then fails.
type hastyRemover struct {
	*core.MemoryStorage
	mu      sync.Mutex
	writing bool // a write is in progress
}

func (h *hastyRemover) UpsertFileFrom(ctx context.Context, p string, write func(w io.Writer) error) error {
	h.mu.Lock()
	h.writing = true
	h.mu.Unlock()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	h.mu.Lock()
	lost := !h.writing
	h.writing = false
	h.mu.Unlock()
	if lost {
		return fmt.Errorf("rename: %w", fs.ErrNotExist)
	}
	return h.UpsertFile(ctx, p, buf.Bytes())
}

func (h *hastyRemover) RemoveTempFiles(context.Context, string, time.Duration) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.writing {
		h.writing = false
		return 1, nil
	}
	return 0, nil
}

func TestCheckReportsARemoverOfWritesInProgress(t *testing.T) {
	hasty := func(t testing.TB) storagetest.Harness {
		return storagetest.Harness{Storage: &hastyRemover{MemoryStorage: core.NewMemoryStorage()}}
	}
	rule := "RemoveTempFiles leaves a write in progress whole"
	if err := storagetest.Check(t.Context(), hasty, storagetest.Capabilities{}); !violatedRules(err)[rule] {
		t.Errorf("Check did not report %q; it reported:\n%v", rule, err)
	}
}

func TestCheckReportsARemoverOfListedFiles(t *testing.T) {
	greedy := func(t testing.TB) storagetest.Harness {
		return storagetest.Harness{Storage: greedyRemover{core.NewMemoryStorage()}}
	}
	rule := "RemoveTempFiles never removes a file ListFiles lists"
	if err := storagetest.Check(t.Context(), greedy, storagetest.Capabilities{}); !violatedRules(err)[rule] {
		t.Errorf("Check did not report %q; it reported:\n%v", rule, err)
	}
}

// TestOptionalOfReportsWhatAStorageImplements checks OptionalOf, the one
// way the suite learns a storage's optional capabilities, on the memory
// storage and on a storage that hides all of them behind FileStorage.
func TestOptionalOfReportsWhatAStorageImplements(t *testing.T) {
	mem := core.NewMemoryStorage()
	var want []string
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"core.GroupWriter", is[core.GroupWriter](mem)},
		{"core.FileStreamer", is[core.FileStreamer](mem)},
		{"core.FileStreamWriter", is[core.FileStreamWriter](mem)},
		{"core.FileMapper", is[core.FileMapper](mem)},
		{"core.FileRangeReader", is[core.FileRangeReader](mem)},
		{"core.TempFileRemover", is[core.TempFileRemover](mem)},
		{"core.FolderLocker", is[core.FolderLocker](mem)},
		{"core.FileVersioner", is[core.FileVersioner](mem)},
	} {
		if c.ok {
			want = append(want, c.name)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the memory storage implements %v: too few for the check to mean anything", want)
	}
	got := storagetest.OptionalOf(mem)
	if fmt.Sprint(got.Names()) != fmt.Sprint(want) {
		t.Errorf("OptionalOf(memory storage).Names() = %v, want %v", got.Names(), want)
	}
	if got.FolderLocker != nil && got.FolderLocker != core.FolderLocker(mem) {
		t.Error("OptionalOf(memory storage).FolderLocker is not the storage itself")
	}
	if names := storagetest.OptionalOf(struct{ core.FileStorage }{mem}).Names(); len(names) != 0 {
		t.Errorf("a storage hiding its capabilities reports %v, want none", names)
	}
}

func is[T any](s core.FileStorage) bool {
	_, ok := s.(T)
	return ok
}
