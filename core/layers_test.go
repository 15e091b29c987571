package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layoutFiles are the files of the layouts: the only ones that may name a
// layout's implementation.
var layoutFiles = map[string]bool{"layout.go": true, "layout_segmented.go": true, "segmap.go": true, "segmap_js.go": true, "segrange.go": true, "segfile.go": true}

// optionalCapabilities are the optional storage and codec interfaces that
// only the file layer (files.go) asks a storage or a codec for.
var optionalCapabilities = map[string]bool{
	"FileMapper": true, "FileRangeReader": true, "FileStreamer": true, "FileStreamWriter": true, "GroupWriter": true,
	"VectorArenaDecoder": true, "IndexStreamDecoder": true, "IndexStreamEncoder": true, "TempFileRemover": true,
	"FolderLocker": true, "FileVersioner": true,
}

// parseFiles parses the package's non-test files in dir.
func parseFiles(t *testing.T, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(name)] = f
	}
	return fset, files
}

// TestLayersKeepTheirBoundaries checks the package's layering: the engine
// holds a layout and never names its implementations outside the layout
// files; only files.go asks a storage or a codec for an optional
// capability.
func TestLayersKeepTheirBoundaries(t *testing.T) {
	fset, files := parseFiles(t, ".")
	if len(files) < 20 {
		t.Fatalf("parsed %d files: not the package", len(files))
	}
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if (n.Name == "segLayout" || n.Name == "fileLayout") && !layoutFiles[name] {
					t.Errorf("%s: %s names a layout's implementation outside the layout files", fset.Position(n.Pos()), n.Name)
				}
			case *ast.TypeAssertExpr:
				if id, ok := n.Type.(*ast.Ident); ok && optionalCapabilities[id.Name] && name != "files.go" {
					t.Errorf("%s: a type assertion to %s outside the file layer (files.go)", fset.Position(n.Pos()), id.Name)
				}
			}
			return true
		})
	}
}

// TestLayoutFunctionsAreShort checks that no function of the layout files
// and of the segment format's package runs over 60 lines.
func TestLayoutFunctionsAreShort(t *testing.T) {
	check := func(fset *token.FileSet, name string, f *ast.File) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; lines > 60 {
				t.Errorf("%s: %s is %d lines, over 60", name, fn.Name.Name, lines)
			}
		}
	}
	fset, files := parseFiles(t, ".")
	for name, f := range files {
		if layoutFiles[name] {
			check(fset, name, f)
		}
	}
	fset, files = parseFiles(t, filepath.Join("internal", "segfile"))
	if len(files) == 0 {
		t.Fatal("no files in internal/segfile")
	}
	for name, f := range files {
		check(fset, "internal/segfile/"+name, f)
	}
}
