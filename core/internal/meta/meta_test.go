package meta

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/foliovec/folio/core/internal/errs"
)

func mustContentHash(t *testing.T, text, docType string, md map[string]any) string {
	t.Helper()
	h, err := ContentHash(text, docType, md)
	if err != nil {
		t.Fatalf("ContentHash(%q, %q, %v): %v", text, docType, md, err)
	}
	return h
}

// Vectra's src/internals/contentHash.spec.ts, case by case.
func TestContentHashVectraSpec(t *testing.T) {
	t.Run("returns 64 lowercase hex characters", func(t *testing.T) {
		if h := mustContentHash(t, "hello", "", nil); !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h) {
			t.Fatalf("hash %q is not 64 lowercase hex digits", h)
		}
	})
	t.Run("identical inputs hash alike", func(t *testing.T) {
		a := mustContentHash(t, "text", "md", map[string]any{"author": "x", "n": 1})
		b := mustContentHash(t, "text", "md", map[string]any{"author": "x", "n": 1})
		if a != b {
			t.Fatalf("%s != %s", a, b)
		}
	})
	differ := []struct {
		name string
		a, b func() string
	}{
		{"text changes the hash",
			func() string { return mustContentHash(t, "one", "", nil) },
			func() string { return mustContentHash(t, "two", "", nil) }},
		{"docType changes the hash",
			func() string { return mustContentHash(t, "same", "md", nil) },
			func() string { return mustContentHash(t, "same", "txt", nil) }},
		{"a metadata value changes the hash",
			func() string { return mustContentHash(t, "t", "", map[string]any{"k": "v1"}) },
			func() string { return mustContentHash(t, "t", "", map[string]any{"k": "v2"}) }},
		{"NUL separators keep fields apart",
			func() string { return mustContentHash(t, "ab", "", nil) },
			func() string { return mustContentHash(t, "a", "b", nil) }},
		{"a number and its text differ",
			func() string { return mustContentHash(t, "t", "", map[string]any{"k": 1}) },
			func() string { return mustContentHash(t, "t", "", map[string]any{"k": "1"}) }},
	}
	for _, tc := range differ {
		t.Run(tc.name, func(t *testing.T) {
			if tc.a() == tc.b() {
				t.Fatal("hashes are equal")
			}
		})
	}
	same := []struct {
		name string
		a, b func() string
	}{
		{"key order does not matter",
			func() string { return mustContentHash(t, "t", "md", map[string]any{"a": 1, "b": 2, "c": 3}) },
			func() string { return mustContentHash(t, "t", "md", map[string]any{"c": 3, "a": 1, "b": 2}) }},
		{"nil metadata hashes as empty metadata",
			func() string { return mustContentHash(t, "t", "md", nil) },
			func() string { return mustContentHash(t, "t", "md", map[string]any{}) }},
		{"any Go number hashes as the float64 JavaScript holds",
			func() string {
				return mustContentHash(t, "t", "", map[string]any{"a": 2024, "b": int64(-3), "c": float32(0.5), "d": uint8(7)})
			},
			func() string {
				return mustContentHash(t, "t", "", map[string]any{"a": 2024.0, "b": -3.0, "c": 0.5, "d": 7.0})
			}},
	}
	for _, tc := range same {
		t.Run(tc.name, func(t *testing.T) {
			if a, b := tc.a(), tc.b(); a != b {
				t.Fatalf("%s != %s", a, b)
			}
		})
	}
}

func TestContentHashRefusesValuesVectraCannotHash(t *testing.T) {
	for name, v := range map[string]any{
		"a slice": []string{"a"},
		"a map":   map[string]any{"a": 1},
		"nil":     nil,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ContentHash("t", "", map[string]any{"k": v})
			if !errors.Is(err, errs.ErrInvalidArgument) {
				t.Fatalf("err = %v, want errs.ErrInvalidArgument", err)
			}
		})
	}
}

type contentHashGolden struct {
	Name     string      `json:"name"`
	Text     string      `json:"text"`
	DocType  *string     `json:"docType"`
	Metadata [][3]string `json:"metadata"`
	Hash     string      `json:"hash"`
}

// golden.json was written by Vectra 0.15's own computeContentHash
// (testdata/generate.js).
func TestContentHashMatchesVectraGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []contentHashGolden `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, c := range golden.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var md map[string]any
			if c.Metadata != nil {
				md = map[string]any{}
				for _, e := range c.Metadata {
					switch e[1] {
					case "s":
						md[e[0]] = e[2]
					case "b":
						md[e[0]] = e[2] == "true"
					case "n":
						f, err := strconv.ParseFloat(e[2], 64)
						if err != nil {
							t.Fatal(err)
						}
						md[e[0]] = f
					}
				}
			}
			docType := ""
			if c.DocType != nil {
				docType = *c.DocType
			}
			if got := mustContentHash(t, c.Text, docType, md); got != c.Hash {
				t.Fatalf("hash = %s, Vectra's = %s", got, c.Hash)
			}
		})
	}
}
