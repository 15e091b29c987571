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
// "ready" once it has read them, and "wrote" after each write, which the
// lanes use to time a write under the load they run in.
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
		fmt.Println("wrote")
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
	seed := uint64(time.Now().UnixNano())
	t.Logf("%d lanes, versions of %d bytes, seed %d", lanes, len(a), seed)

	results := make([]crashLane, lanes)
	var wg sync.WaitGroup
	for lane := range lanes {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(lane)))
			results[lane] = runCrashLane(t, lane, crashKills/lanes, rng, [2]string{versionA, versionB}, a, b)
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
// killing it at a random moment of its first two writes, and checks the
// file after each kill. It reports failures with t.Errorf and stops at the
// first.
//
// How long a write takes is measured by a child of the lane itself, so
// under the load the other lanes (and a busy machine) put on it: a delay
// timed on an idle disk may end before a loaded child's first rename. The
// lane measures again when its last few kills all found the file
// unchanged, since a machine's load changes.
func runCrashLane(t *testing.T, lane, kills int, rng *rand.Rand, versions [2]string, a, b []byte) (r crashLane) {
	const remeasureAfter = 6 // kills in a row that found the file unchanged
	ctx := t.Context()
	dir := t.TempDir()
	file := filepath.Join(dir, crashFile)
	s := localStorage()
	if err := s.UpsertFile(ctx, file, a); err != nil {
		t.Error(err)
		return r
	}
	env := crashChildEnv + "=" + strings.Join([]string{file, versions[0], versions[1]}, string(os.PathListSeparator))
	var maxDelay time.Duration
	unchanged := 0 // kills in a row that found the file as it was
	for kill := range kills {
		if maxDelay == 0 || unchanged >= remeasureAfter {
			firstWrite, err := timeChildWrite(ctx, env)
			if err != nil {
				t.Errorf("lane %d: %v", lane, err)
				return r
			}
			maxDelay, unchanged = 2*firstWrite+time.Millisecond, 0
			t.Logf("lane %d, kill %d: a child's first write takes %v; kills land 0..%v after the child is ready",
				lane, kill, firstWrite, maxDelay)
		}
		before, err := os.ReadFile(file)
		if err != nil {
			t.Error(err)
			return r
		}
		child, err := testkit.StartChild(ctx, env)
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
		if bytes.Equal(got, before) {
			unchanged++
		} else {
			unchanged = 0
		}
	}
	return r
}

// timeChildWrite starts a crash child with env, waits for its first
// write, kills it, and returns the time from its "ready" to the write's end.
// The file the child rewrote is left as the write made it.
func timeChildWrite(ctx context.Context, env string) (time.Duration, error) {
	child, err := testkit.StartChild(ctx, env)
	if err != nil {
		return 0, err
	}
	begin := time.Now()
	line, err := child.Stdout.ReadString('\n')
	took := time.Since(begin)
	child.Kill()
	if line != "wrote\n" {
		child.Wait()
		return 0, fmt.Errorf("timing the child's first write: %q, %v; stderr: %s", line, err, child.Stderr())
	}
	return took, child.WaitKilled()
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
