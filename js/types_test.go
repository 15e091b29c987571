//go:build !(js && wasm)

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeclarationsAsVectra type-checks testdata/types/usage.ts, a page's
// code written against Vectra's browser API, twice with the TypeScript
// compiler in strict mode: importing Vectra 0.15's declarations
// ("vectra/browser") and importing Folio's (folio.d.ts). Only the import
// differs; both must compile.
func TestDeclarationsAsVectra(t *testing.T) {
	tsc, vectraNPM := os.Getenv("FOLIO_TSC"), os.Getenv("FOLIO_VECTRA_NPM")
	if tsc == "" || vectraNPM == "" {
		t.Skip("FOLIO_TSC or FOLIO_VECTRA_NPM is not set (make test installs TypeScript and Vectra and sets them)")
	}
	usage, err := os.ReadFile(filepath.Join("testdata", "types", "usage.ts"))
	if err != nil {
		t.Fatal(err)
	}
	decl, err := os.ReadFile(filepath.Join("package", "folio.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, module string }{{"folio", "./folio.js"}, {"vectra", "vectra/browser"}} {
		dir := t.TempDir()
		write := func(name string, b []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("usage.ts", []byte(strings.Replace(string(usage), `"LIBRARY"`, `"`+c.module+`"`, 1)))
		if c.name == "folio" {
			write("folio.d.ts", decl)
		} else if err := os.Symlink(filepath.Join(vectraNPM, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext",
			"--lib", "es2022,dom", "--skipLibCheck", "usage.ts")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("usage.ts against %s's declarations: %v\n%s", c.name, err, out)
		}
	}
}
