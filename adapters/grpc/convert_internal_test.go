package grpcserver

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/foliovec/folio/core"
)

// wantCodes is the status code of every sentinel error core exports. A new
// sentinel in core without a row here fails the test: give it a row here
// and in statusCodes.
var wantCodes = map[string]struct {
	err  error
	code codes.Code
}{
	"ErrIndexExists":             {core.ErrIndexExists, codes.AlreadyExists},
	"ErrIndexNotFound":           {core.ErrIndexNotFound, codes.NotFound},
	"ErrItemExists":              {core.ErrItemExists, codes.AlreadyExists},
	"ErrUpdateInProgress":        {core.ErrUpdateInProgress, codes.Aborted},
	"ErrNoUpdate":                {core.ErrNoUpdate, codes.FailedPrecondition},
	"ErrInvalidArgument":         {core.ErrInvalidArgument, codes.InvalidArgument},
	"ErrInvalidFilter":           {core.ErrInvalidFilter, codes.InvalidArgument},
	"ErrDimensionMismatch":       {core.ErrDimensionMismatch, codes.InvalidArgument},
	"ErrEmbeddingsNotConfigured": {core.ErrEmbeddingsNotConfigured, codes.FailedPrecondition},
	"ErrCorrupt":                 {core.ErrCorrupt, codes.DataLoss},
	"ErrNotDocumentIndex":        {core.ErrNotDocumentIndex, codes.FailedPrecondition},
	"ErrEmbeddingsFailed":        {core.ErrEmbeddingsFailed, codes.Unavailable},
	"ErrRateLimited":             {core.ErrRateLimited, codes.ResourceExhausted},
	"ErrEmbeddingsCancelled":     {core.ErrEmbeddingsCancelled, codes.Canceled},
	"ErrPartiallyMigrated":       {core.ErrPartiallyMigrated, codes.FailedPrecondition},
	"ErrHTTPStatus":              {core.ErrHTTPStatus, codes.Unavailable},
	"ErrContentType":             {core.ErrContentType, codes.InvalidArgument},
	"ErrBodyTooLarge":            {core.ErrBodyTooLarge, codes.ResourceExhausted},
}

// coreSentinels lists the exported package-level error variables of core,
// read from its source: var ErrX = errors.New(…).
func coreSentinels(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "core", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("core's sources: %v", err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.CallExpr: // errors.New(…), fmt.Errorf(…)
						if sel, ok := v.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "New" || sel.Sel.Name == "Errorf") {
							names = append(names, name.Name)
						}
					case *ast.SelectorExpr: // a sentinel of an internal package: filter.ErrInvalid
						if strings.HasPrefix(name.Name, "Err") {
							names = append(names, name.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// Every sentinel core exports maps to its status code, also when wrapped,
// so no error a client can act on falls through to INTERNAL.
func TestEverySentinelHasAStatusCode(t *testing.T) {
	names := coreSentinels(t)
	if len(names) < 10 {
		t.Fatalf("found only %d sentinels in core: %v", len(names), names)
	}
	for _, name := range names {
		want, ok := wantCodes[name]
		if !ok {
			t.Errorf("core.%s has no status code: add it to statusCodes and wantCodes", name)
			continue
		}
		if got := codeOf(fmt.Errorf("some call: %w", want.err)); got != want.code {
			t.Errorf("core.%s: %v, want %v", name, got, want.code)
		}
	}
	if got := codeOf(errors.New("anything else")); got != codes.Internal {
		t.Errorf("an unknown error: %v, want Internal", got)
	}
	// A rate-limited embeddings error is also an embeddings failure: the
	// more specific code wins.
	ee := &core.EmbeddingsError{Status: core.EmbeddingsRateLimited, Message: "slow down"}
	if got := codeOf(ee); got != codes.ResourceExhausted {
		t.Errorf("a rate-limited embeddings error: %v, want ResourceExhausted", got)
	}
}
