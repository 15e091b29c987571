package core

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// slowSidecarStorage serves every side-car read but one only once the
// read's context is done (a slow storage that honours cancellation); the
// side-car named missing fails at once with fs.ErrNotExist.
type slowSidecarStorage struct {
	*memTestStorage
	missing string
}

func (s *slowSidecarStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	switch {
	case s.missing != "" && strings.HasSuffix(p, "/"+s.missing):
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	case s.missing != "" && strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "/index.json"):
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
		}
	}
	return s.memTestStorage.ReadFile(ctx, p)
}

func TestQuerySidecarFailureIsReportedNotMaskedByCancellation(t *testing.T) {
	tests := []struct {
		name    string
		missing int // result rank whose side-car is missing
	}{
		{"a missing side-car ranked last fails the query with fs.ErrNotExist", 2},
		{"a missing side-car ranked first fails the query with fs.ErrNotExist", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &slowSidecarStorage{memTestStorage: newMemTestStorage()}
			ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
				t.Fatal(err)
			}
			// Ranked 0, 1, 2 for the query {1, 0}.
			vecs := [][]float32{{1, 0}, {1, 0.5}, {1, 1}}
			var files []string
			for i, v := range vecs {
				it := mustInsert(t, ix, string(rune('x'+i)), v, Metadata{"a": "k", "b": i})
				files = append(files, it.MetadataFile)
			}
			st.missing = files[tc.missing]
			_, err = ix.QueryItems(ctxb, []float32{1, 0}, "", 3, nil, false)
			if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, context.Canceled) {
				t.Fatalf("QueryItems = %v; want fs.ErrNotExist, not context.Canceled", err)
			}
		})
	}
}
