package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realTemp is t.TempDir with symbolic links resolved, as add stores paths.
func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The reproduction of `folio add` copying /etc into an index through a
// link in the tree: nothing from outside the folder named is added, each
// link out is listed as skipped with its target, and --follow-links adds
// what they lead to under its real path.
func TestAddStaysInsideTheFolderNamed(t *testing.T) {
	dir := realTemp(t)
	secrets := realTemp(t)
	writeFiles(t, secrets, map[string]string{"shadow": "root:$6$secret", "ssl/private/key.pem": "BEGIN PRIVATE KEY"})
	writeFiles(t, dir, map[string]string{"o/docs/a.txt": "inside"})
	if err := os.Symlink(secrets, filepath.Join(dir, "o/docs/etc-link")); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	rep := decode[addReport](t, must(t, dir, 0, "add", "ix", "--uri", "o/docs/", "--json"))
	if want := []string{filepath.Join(dir, "o/docs/a.txt")}; !slices.Equal(rep.Added, want) {
		t.Errorf("added %v, want %v", rep.Added, want)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].URI != filepath.Join(dir, "o/docs/etc-link") || !strings.Contains(rep.Skipped[0].Reason, secrets) {
		t.Errorf("skipped %+v, want etc-link with its target %s", rep.Skipped, secrets)
	}
	r := must(t, dir, 0, "add", "ix", "--uri", "o/docs/", "--follow-links", "--json")
	rep = decode[addReport](t, r)
	want := []string{filepath.Join(secrets, "shadow"), filepath.Join(secrets, "ssl/private/key.pem")}
	if !slices.Equal(rep.Added, want) || len(rep.Skipped) != 0 {
		t.Errorf("--follow-links: added %v, skipped %v; want %v", rep.Added, rep.Skipped, want)
	}
}

// A file reached through a symbolic link to a folder and by its real path
// is one document.
func TestAddStoresAFileReachedTwiceOnce(t *testing.T) {
	dir := realTemp(t)
	writeFiles(t, dir, map[string]string{"real/x.md": "the one file"})
	if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real", filepath.Join(dir, "tree/link")); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	for _, args := range [][]string{{"tree/", "real/"}, {"real/", "tree/"}, {"tree/link/x.md"}} {
		rep := decode[addReport](t, must(t, dir, 0, append([]string{"add", "ix", "--follow-links", "--json", "--uri"}, args...)...))
		if got := slices.Concat(rep.Added, rep.Unchanged); !slices.Equal(got, []string{filepath.Join(dir, "real/x.md")}) {
			t.Errorf("add --uri %v: %v, want real/x.md once", args, got)
		}
	}
	r := must(t, dir, 0, "stats", "ix", "--json")
	if stats := decode[map[string]any](t, r); stats["documents"] != float64(1) {
		t.Errorf("stats: %v, want 1 document", r.stdout)
	}
}

// A 2 GB sparse file in a tree is skipped unread: the whole add stays
// under 150 MB of memory, and --max-file-size moves the cap.
func TestAddSkipsAHugeFileUnread(t *testing.T) {
	dir := realTemp(t)
	writeFiles(t, dir, map[string]string{"tree/a.txt": "small", "tree/b.txt": strings.Repeat("word ", 400)})
	f, err := os.Create(filepath.Join(dir, "tree/huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	cmd := exec.CommandContext(t.Context(), folioBin, "add", "ix", "--uri", "tree/", "--json")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's own high-water mark (VmHWM), polled until it exits: the
	// rusage of a child Go started includes the parent's memory at the
	// fork, so it cannot tell.
	peak := make(chan int64)
	go func() {
		var hwm int64
		for {
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
			if err != nil {
				peak <- hwm
				return
			}
			for line := range strings.SplitSeq(string(raw), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						hwm = max(hwm, kb<<10)
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	err = cmd.Wait()
	hwm := <-peak
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	rep := decode[addReport](t, result{stdout: out.String()})
	if len(rep.Added) != 2 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, "too large") {
		t.Errorf("added %v, skipped %+v; want huge.txt skipped as too large", rep.Added, rep.Skipped)
	}
	if hwm > 150<<20 {
		t.Errorf("peak memory %d MB, want at most 150", hwm>>20)
	}
	t.Logf("peak memory of folio add (VmHWM, read until it exits): %d MB", hwm>>20)
	rep = decode[addReport](t, must(t, dir, 0, "add", "ix", "--uri", "tree/", "--max-file-size", "1KiB", "--json"))
	if len(rep.Skipped) != 2 {
		t.Errorf("--max-file-size 1KiB: skipped %+v, want huge.txt and b.txt", rep.Skipped)
	}
	if r := folioIn(t, dir, "add", "ix", "--uri", "tree/", "--max-file-size", "lots"); r.code != 2 || !strings.Contains(r.stderr, "not a size") {
		t.Errorf("--max-file-size lots: exit %d, %s", r.code, r.stderr)
	}
}

// A list of dropped files that cannot be written (a folder in its place)
// is reported on stderr, not passed over in silence: add gives the engine a
// logger for its warnings.
func TestAddReportsAnUnwritableDroppedList(t *testing.T) {
	dir := realTemp(t)
	writeFiles(t, dir, map[string]string{"docs/a.md": "first text"})
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	must(t, dir, 0, "add", "ix", "--uri", "docs", "-q")
	if err := os.Mkdir(filepath.Join(dir, "ix", ".folio-dropped.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"docs/a.md": "second text, which drops the first one's files"})
	r := must(t, dir, 0, "add", "ix", "--uri", "docs", "-q")
	if !strings.Contains(r.stderr, "dropped files") {
		t.Errorf("stderr %q, want the unwritable list reported", r.stderr)
	}
}
