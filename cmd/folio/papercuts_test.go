package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Small things a first hour trips on.
func TestFirstHourPapercuts(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	writeDocs(t, dir)
	must(t, dir, 0, "add", "ix", "--uri", "docs", "-q")
	// An empty query is a usage error, not every passage of the index.
	for _, q := range []string{"", "   "} {
		r := must(t, dir, 2, "query", "ix", q)
		if !strings.Contains(r.stderr, "empty") || r.stdout != "" {
			t.Errorf("query %q: stdout %q, stderr %q; want a usage error saying the query is empty", q, r.stdout, r.stderr)
		}
	}
	// Vectra's two-letter aliases are in the help.
	help := must(t, dir, 0, "query", "--help").stdout
	for _, alias := range []string{"--dc", "--cc", "--sc"} {
		if !strings.Contains(help, alias) {
			t.Errorf("query --help does not name %s", alias)
		}
	}
	if help := must(t, dir, 0, "add", "--help").stdout; !strings.Contains(help, "--cs") {
		t.Error("add --help does not name --cs")
	}
	// A missing index is said once, without the sentinel's own words.
	r := must(t, dir, 1, "query", "nothere", "x")
	if strings.Count(r.stderr, "no index") != 1 || strings.Contains(r.stderr, "does not exist") {
		t.Errorf("query of a missing index: %q", r.stderr)
	}
	// Errors from the library carry no internal package prefix.
	must(t, dir, 0, "create", "broken", "--hash-dims", "16")
	if err := os.WriteFile(filepath.Join(dir, "broken", "index.json"), []byte(`{"broken`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"query", "ix", "x", "--filter", `{"a": {"$foo": 1}}`},
		{"stats", "broken"},
		{"query", "broken", "x"},
	} {
		if r := folioIn(t, dir, args...); r.code == 0 || strings.Contains(r.stderr, "core:") {
			t.Errorf("folio %v: exit %d, %q; want an error without core:", args, r.code, r.stderr)
		}
	}
	// A usage error points to the command's own help.
	r = must(t, dir, 2, "query", "ix", "x", "--format", "nonsense")
	if !strings.Contains(r.stderr, "Run 'folio query --help'") {
		t.Errorf("usage error: %q, want a pointer to folio query --help", r.stderr)
	}
}

// An option folio does not know is ignored with a warning, with its value,
// as Vectra's yargs ignores it; a shorthand group is still cobra's.
func TestUnknownOptionsAreIgnoredAsYargsDoes(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	writeDocs(t, dir)
	must(t, dir, 0, "add", "ix", "--uri", "docs", "-q", "--futureOption", "on")
	r := must(t, dir, 0, "query", "ix", "yeast dough", "--dc", "1", "--verbose", "--color=never", "--format", "stats")
	for _, w := range []string{"ignoring unknown option --verbose\n", "ignoring unknown option --color=never\n"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr %q, want %q", r.stderr, w)
		}
	}
	if !strings.Contains(r.stdout, "bread.md") {
		t.Errorf("the query with unknown options: %q", r.stdout)
	}
	if r := folioIn(t, dir, "query", "ix", "x", "-zq"); r.code != 2 {
		t.Errorf("an unknown shorthand group: exit %d, want 2", r.code)
	}
}
