package codecjson_test

import (
	"path/filepath"
	"testing"

	"github.com/foliovec/folio/conformance/testkit"
)

// jsonFiles lists the .json files of a fixture folder.
func jsonFiles(t testing.TB, folder string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(testkit.FixtureDir(t), folder, "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no .json files in fixture folder %s (%v)", folder, err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}
