package filetree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/filetree"
)

// tree makes files (path -> content) and links (path -> target) below a
// new folder and returns it, links resolved.
func tree(t *testing.T, files map[string]string, links map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// walked returns the files and skips a walk of root reported, paths
// relative to base where they lie below it.
func walked(t *testing.T, root, base string, opts *filetree.Options) (files, skipped []string, reasons []error) {
	t.Helper()
	err := filetree.Walk(context.Background(), root, opts, func(e filetree.Entry) error {
		p := e.Path
		if rel, err := filepath.Rel(base, p); err == nil && filepath.IsLocal(rel) {
			p = rel
		}
		if e.Err != nil {
			skipped = append(skipped, p)
			reasons = append(reasons, e.Err)
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return files, skipped, reasons
}

func TestWalkStaysInsideTheTree(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "s", "sub/key.pem": "k"}, nil)
	dir := tree(t, map[string]string{"docs/a.txt": "a"}, map[string]string{
		"docs/out-link":  outside,
		"docs/file-link": filepath.Join(outside, "secret.txt"),
	})
	files, skipped, reasons := walked(t, filepath.Join(dir, "docs"), dir, nil)
	if !slices.Equal(files, []string{"docs/a.txt"}) {
		t.Errorf("files = %v, want only docs/a.txt", files)
	}
	if !slices.Equal(skipped, []string{"docs/file-link", "docs/out-link"}) {
		t.Fatalf("skipped = %v, want both links", skipped)
	}
	for i, r := range reasons {
		var le *filetree.LinkError
		if !errors.Is(r, filetree.ErrOutsideTree) || !errors.As(r, &le) {
			t.Fatalf("reason %d = %v, want a LinkError wrapping ErrOutsideTree", i, r)
		}
	}
	var le *filetree.LinkError
	errors.As(reasons[1], &le)
	if le.Target != outside {
		t.Errorf("target = %q, want %q", le.Target, outside)
	}
}

func TestWalkFollowsLinksOutWhenAsked(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "s", "sub/key.pem": "k"}, nil)
	dir := tree(t, map[string]string{"a.txt": "a"}, map[string]string{"out-link": outside})
	files, skipped, _ := walked(t, dir, dir, &filetree.Options{FollowLinks: true})
	want := []string{"a.txt", filepath.Join(outside, "secret.txt"), filepath.Join(outside, "sub/key.pem")}
	if !slices.Equal(files, want) || len(skipped) != 0 {
		t.Errorf("files = %v, skipped %v; want %v under their real paths", files, skipped, want)
	}
}

func TestWalkReportsAFileReachedTwiceOnceUnderItsRealPath(t *testing.T) {
	dir := tree(t, map[string]string{"real/b.txt": "b", "real/c.txt": "c"}, map[string]string{
		"a-link":        "real",       // a folder link, walked before real/
		"real/a-to-c":   "c.txt",      // a file link beside its target
		"loop/back":     "..",         // a cycle
		"loop/dangling": "nowhere.md", // leads nowhere
	})
	files, skipped, _ := walked(t, dir, dir, nil)
	slices.Sort(files) // real/c.txt comes first, through a-to-c
	want := []string{"real/b.txt", "real/c.txt"}
	if !slices.Equal(files, want) || len(skipped) != 0 {
		t.Errorf("files = %v, skipped %v; want %v", files, skipped, want)
	}
}

func TestWalkSpellsPathsFromTheRootAsGiven(t *testing.T) {
	dir := tree(t, map[string]string{"docs/real/x.md": "x"}, map[string]string{"docs/link": "real"})
	t.Chdir(dir)
	files, _, _ := walked(t, "docs", "", nil)
	if !slices.Equal(files, []string{"docs/real/x.md"}) {
		t.Errorf("files = %v, want [docs/real/x.md]", files)
	}
}

func TestWalkExcludes(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a", "index/b.txt": "b", "c.txt": "c"}, nil)
	files, _, _ := walked(t, dir, dir, &filetree.Options{Exclude: func(p string) bool {
		return p == filepath.Join(dir, "index") || p == filepath.Join(dir, "c.txt")
	}})
	if !slices.Equal(files, []string{"a.txt"}) {
		t.Errorf("files = %v, want [a.txt]", files)
	}
}

func TestWalkSkipsWhatIsNotAFile(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a"}, nil)
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	files, skipped, reasons := walked(t, dir, dir, nil)
	if !slices.Equal(files, []string{"a.txt"}) || !slices.Equal(skipped, []string{"pipe"}) || !errors.Is(reasons[0], filetree.ErrNotRegular) {
		t.Errorf("files %v, skipped %v (%v); want the FIFO skipped as not regular", files, skipped, reasons)
	}
}

func TestWalkStopsOnTheCallbacksError(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a", "b.txt": "b"}, nil)
	stop := errors.New("stop")
	n := 0
	err := filetree.Walk(context.Background(), dir, nil, func(filetree.Entry) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d calls, want stop after 1", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := filetree.Walk(ctx, dir, nil, func(filetree.Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v", err)
	}
	if err := filetree.Walk(context.Background(), filepath.Join(dir, "none"), nil, func(filetree.Entry) error { return nil }); !filetree.Missing(err) {
		t.Errorf("missing root: %v, want not-exist", err)
	}
}

func TestWalkFollowsLinksIntoFoldersNamedInside(t *testing.T) {
	other := tree(t, map[string]string{"b.txt": "b"}, nil)
	dir := tree(t, map[string]string{"a.txt": "a"}, map[string]string{"to-other": other})
	files, skipped, _ := walked(t, dir, dir, &filetree.Options{Inside: []string{other}})
	if want := []string{"a.txt", filepath.Join(other, "b.txt")}; !slices.Equal(files, want) || len(skipped) != 0 {
		t.Errorf("files %v, skipped %v; want %v", files, skipped, want)
	}
}

func TestWalkOnFolder(t *testing.T) {
	dir := tree(t, map[string]string{"a/x.txt": "x", "b/y.txt": "y", "c.txt": "c"}, map[string]string{"link-to-a": "a"})
	var folders []string
	files, _, _ := walked(t, dir, dir, &filetree.Options{OnFolder: func(p string) error {
		folders = append(folders, p)
		if filepath.Base(p) == "b" {
			return filetree.SkipDir
		}
		return nil
	}})
	if want := []string{dir, filepath.Join(dir, "a"), filepath.Join(dir, "b")}; !slices.Equal(folders, want) {
		t.Errorf("folders %v, want %v (each real folder once)", folders, want)
	}
	if want := []string{"a/x.txt", "c.txt"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	stop := errors.New("stop")
	if err := filetree.Walk(context.Background(), dir, &filetree.Options{OnFolder: func(string) error { return stop }}, func(filetree.Entry) error { return nil }); !errors.Is(err, stop) {
		t.Errorf("OnFolder's error: %v", err)
	}
}
