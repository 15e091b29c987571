package storagefs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// The crash test re-executes this test binary as a child that rewrites one
// file in a loop, kills it at random moments, and checks the file each time.

const (
	// crashChildEnv is set in the child: the file to rewrite, then the files
	// holding versions A and B, as a list of paths (filepath.SplitList).
	crashChildEnv = "STORAGEFS_CRASH_CHILD"
	crashKills    = 200
	crashSize     = 3 << 20 // bytes per version
	crashFile     = "index.bin"
)

func TestMain(m *testing.M) {
	if env := os.Getenv(crashChildEnv); env != "" {
		crashChild(filepath.SplitList(env))
		os.Exit(2) // crashChild only returns on failure
	}
	os.Exit(m.Run())
}

// crashVersion builds version tag of the file: a header naming the tag, a
// payload, and the SHA-256 of both, so any mix of versions is detectable
// even without comparing with the originals.
func crashVersion(tag byte) []byte {
	header := fmt.Appendf(nil, "FOLIO-CRASH-TEST version %c\n", tag)
	block := bytes.Repeat([]byte{tag}, 4096)
	for i := range block {
		block[i] += byte(i) // vary within a block; blocks repeat
	}
	payload := bytes.Repeat(block, (crashSize-len(header)-sha256.Size)/len(block))
	content := append(header, payload...)
	sum := sha256.Sum256(content)
	return append(content, sum[:]...)
}

// selfConsistent reports whether content has a valid trailing checksum.
func selfConsistent(content []byte) bool {
	if len(content) < sha256.Size {
		return false
	}
	body, sum := content[:len(content)-sha256.Size], content[len(content)-sha256.Size:]
	want := sha256.Sum256(body)
	return bytes.Equal(sum, want[:])
}

// crashChild rewrites args[0] forever through UpsertFile, alternating the
// versions read from args[1] and args[2], until it is killed. It prints
// "ready" once it has read them.
func crashChild(args []string) {
	ctx := context.Background()
	s := localStorage()
	a, errA := os.ReadFile(args[1])
	b, errB := os.ReadFile(args[2])
	if err := errors.Join(errA, errB); err != nil {
		fmt.Fprintln(os.Stderr, "child: read versions:", err)
		return
	}
	fmt.Println("ready")
	for {
		current, err := s.ReadFile(ctx, args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: read:", err)
			return
		}
		next := a
		if bytes.Equal(current, a) {
			next = b
		}
		if err := s.UpsertFile(ctx, args[0], next); err != nil {
			fmt.Fprintln(os.Stderr, "child: upsert:", err)
			return
		}
	}
}

// TestUpsertFileSurvivesKill is the acceptance test of atomic writes: a
// process killed with SIGKILL at any moment of UpsertFile leaves the whole
// old content or the whole new one, and the temporary files it leaves are
// never listed. The kills run in a few lanes at once, each with its own
// child and file, to keep the test short under -race.
func TestUpsertFileSurvivesKill(t *testing.T) {
	const lanes = 4
	a, b := crashVersion('A'), crashVersion('B')
	versions := t.TempDir() // where the children read the versions from
	versionA, versionB := filepath.Join(versions, "A"), filepath.Join(versions, "B")
	mustNoErr(t, os.WriteFile(versionA, a, 0o666))
	mustNoErr(t, os.WriteFile(versionB, b, 0o666))
	s := localStorage()
	probe := filepath.Join(versions, crashFile)
	begin := time.Now()
	for _, v := range [][]byte{a, b, a} {
		mustNoErr(t, s.UpsertFile(t.Context(), probe, v))
	}
	oneWrite := time.Since(begin) / 3
	maxDelay := 2*oneWrite + time.Millisecond
	seed := uint64(time.Now().UnixNano())
	t.Logf("one UpsertFile of %d bytes takes %v; kills land 0..%v after the child is ready; seed %d",
		len(a), oneWrite, maxDelay, seed)

	results := make([]crashLane, lanes)
	var wg sync.WaitGroup
	for lane := range lanes {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(lane)))
			results[lane] = runCrashLane(t, crashKills/lanes, maxDelay, rng, [2]string{versionA, versionB}, a, b)
		})
	}
	wg.Wait()
	var total crashLane
	for _, r := range results {
		total.a, total.b, total.leftovers = total.a+r.a, total.b+r.b, total.leftovers+r.leftovers
	}
	t.Logf("%d kills: the file held version A %d times and B %d times; %d temporary files were left on disk, none listed",
		total.a+total.b, total.a, total.b, total.leftovers)
	if !t.Failed() && (total.a == 0 || total.b == 0) {
		t.Errorf("every kill found the same version: the kills did not land during the writes")
	}
}

// crashLane counts what one lane's kills found.
type crashLane struct{ a, b, leftovers int }

// runCrashLane starts a child rewriting a file of its own kills times,
// the versions a and b being in the files named by versions,
// killing it 0..maxDelay after it is ready, and checks the file after each
// kill. It reports failures with t.Errorf and stops at the first.
func runCrashLane(t *testing.T, kills int, maxDelay time.Duration, rng *rand.Rand, versions [2]string, a, b []byte) (r crashLane) {
	ctx := t.Context()
	dir := t.TempDir()
	file := filepath.Join(dir, crashFile)
	s := localStorage()
	if err := s.UpsertFile(ctx, file, a); err != nil {
		t.Error(err)
		return r
	}
	for kill := range kills {
		child, err := testkit.StartChild(ctx, crashChildEnv+"="+strings.Join([]string{file, versions[0], versions[1]}, string(os.PathListSeparator)))
		if err != nil {
			t.Errorf("kill %d: %v", kill, err)
			return r
		}
		time.Sleep(time.Duration(rng.Int64N(int64(maxDelay))))
		if err := child.Kill(); err != nil {
			t.Error(err)
			return r
		}
		if err := child.WaitKilled(); err != nil {
			t.Errorf("kill %d: %v", kill, err)
			return r
		}

		// Temporary files a kill left are on disk but never listed.
		list, err := s.ListFiles(ctx, filepath.ToSlash(dir), core.ListAll)
		if err != nil || len(list) != 1 || list[0].Name != crashFile {
			t.Errorf("kill %d: ListFiles = %+v, %v, want %s alone", kill, list, err, crashFile)
			return r
		}
		r.leftovers += removeTemporaryFiles(t, dir)

		got, err := os.ReadFile(file)
		switch {
		case err != nil:
			t.Errorf("kill %d: reading the file: %v", kill, err)
			return r
		case bytes.Equal(got, a):
			r.a++
		case bytes.Equal(got, b):
			r.b++
		default:
			t.Errorf("kill %d: the file is torn: %d bytes, header %q, checksum valid: %v",
				kill, len(got), got[:min(len(got), 26)], selfConsistent(got))
			return r
		}
	}
	return r
}

// removeTemporaryFiles deletes the temporary files in dir, so the kills do
// not fill the disk, and returns how many there were.
func removeTemporaryFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), storagefs.TempPrefix) {
			n++
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Error(err)
			}
		}
	}
	return n
}
