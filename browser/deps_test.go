//go:build !(js && wasm)

package browser_test

import (
	"os/exec"
	"strings"
	"testing"
)

// forbidden are the packages a browser build must not pull in: Folio's
// adapters for servers and the libraries behind them.
var forbidden = []string{
	"github.com/foliovec/folio/adapters/storage-fs",
	"github.com/foliovec/folio/adapters/storage-blob",
	"github.com/foliovec/folio/adapters/fetch", // FileFetcher and the Go HTTP WebFetcher
	"github.com/foliovec/folio/adapters/watch",
	"github.com/foliovec/folio/adapters/embed-onnx",
	"github.com/foliovec/folio/adapters/grpc",
	"github.com/fsnotify/fsnotify",
	"google.golang.org/grpc",
	"github.com/yalue/onnxruntime_go",
	"gocloud.dev",
}

// osPackages are the standard packages that reach the operating system's
// files and processes; none of Folio's own packages in a browser build may
// import them.
var osPackages = map[string]bool{"os": true, "os/exec": true, "os/signal": true, "io/ioutil": true, "net/http": true}

// TestBrowserBuildDependencies lists what the package and the browser
// adapters pull in for js/wasm and checks it against forbidden, and that
// Folio's own packages among them never import osPackages.
func TestBrowserBuildDependencies(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \",\"}}",
		".", "github.com/foliovec/folio/adapters/fetch-browser")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		n++
		for _, f := range forbidden {
			if pkg == f || strings.HasPrefix(pkg, f+"/") {
				t.Errorf("the browser build pulls in %s", pkg)
			}
		}
		if !strings.HasPrefix(pkg, "github.com/foliovec/folio/") {
			continue
		}
		for imp := range strings.SplitSeq(imports, ",") {
			if osPackages[imp] {
				t.Errorf("%s imports %s in the browser build", pkg, imp)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list reported %d packages; the check saw too little to mean anything:\n%s", n, out)
	}
}
