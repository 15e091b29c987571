package codecjson_test

import (
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir finds testdata/vectra-0.15 by walking up from the package
// directory.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		candidate := filepath.Join(dir, "testdata", "vectra-0.15")
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testdata/vectra-0.15 not found above the package directory")
		}
		dir = parent
	}
}

// readFixture reads a file under testdata/vectra-0.15.
func readFixture(t testing.TB, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{fixtureDir(t)}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonFiles lists the .json files of a fixture folder.
func jsonFiles(t testing.TB, folder string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(fixtureDir(t), folder, "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no .json files in fixture folder %s (%v)", folder, err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}
