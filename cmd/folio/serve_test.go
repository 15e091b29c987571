package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token file or $FOLIO_TOKEN that yields an empty token stops serve at
// start-up: an empty file must never mean "no authentication".
func TestServeRefusesAnEmptyToken(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	for _, content := range []string{"", "\n", "  \t\n"} {
		f := filepath.Join(dir, "token")
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		r := must(t, dir, 1, "serve", "ix", "--port", fmt.Sprint(freePort(t)), "--token-file", f)
		if !strings.Contains(r.stderr, "is empty") || strings.Contains(r.stdout, listeningLine) {
			t.Errorf("token file %q: stdout %q, stderr %q; want a refusal before listening", content, r.stdout, r.stderr)
		}
	}
	t.Setenv(tokenEnv, " \n")
	r := must(t, dir, 1, "serve", "ix", "--port", fmt.Sprint(freePort(t)))
	if !strings.Contains(r.stderr, tokenEnv) || strings.Contains(r.stdout, listeningLine) {
		t.Errorf("empty $%s: stdout %q, stderr %q; want a refusal before listening", tokenEnv, r.stdout, r.stderr)
	}
}
