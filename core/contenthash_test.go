package core

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func mustContentHash(t *testing.T, text, docType string, md Metadata) string {
	t.Helper()
	h, err := contentHash(text, docType, md)
	if err != nil {
		t.Fatalf("contentHash(%q, %q, %v): %v", text, docType, md, err)
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
		a := mustContentHash(t, "text", "md", Metadata{"author": "x", "n": 1})
		b := mustContentHash(t, "text", "md", Metadata{"author": "x", "n": 1})
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
			func() string { return mustContentHash(t, "t", "", Metadata{"k": "v1"}) },
			func() string { return mustContentHash(t, "t", "", Metadata{"k": "v2"}) }},
		{"NUL separators keep fields apart",
			func() string { return mustContentHash(t, "ab", "", nil) },
			func() string { return mustContentHash(t, "a", "b", nil) }},
		{"a number and its text differ",
			func() string { return mustContentHash(t, "t", "", Metadata{"k": 1}) },
			func() string { return mustContentHash(t, "t", "", Metadata{"k": "1"}) }},
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
			func() string { return mustContentHash(t, "t", "md", Metadata{"a": 1, "b": 2, "c": 3}) },
			func() string { return mustContentHash(t, "t", "md", Metadata{"c": 3, "a": 1, "b": 2}) }},
		{"nil metadata hashes as empty metadata",
			func() string { return mustContentHash(t, "t", "md", nil) },
			func() string { return mustContentHash(t, "t", "md", Metadata{}) }},
		{"any Go number hashes as the float64 JavaScript holds",
			func() string {
				return mustContentHash(t, "t", "", Metadata{"a": 2024, "b": int64(-3), "c": float32(0.5), "d": uint8(7)})
			},
			func() string {
				return mustContentHash(t, "t", "", Metadata{"a": 2024.0, "b": -3.0, "c": 0.5, "d": 7.0})
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
			_, err := contentHash("t", "", Metadata{"k": v})
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
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
// (testdata/contenthash/generate.js).
func TestContentHashMatchesVectraGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "contenthash", "golden.json"))
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
			var md Metadata
			if c.Metadata != nil {
				md = Metadata{}
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

// The hashes stored in a catalog Vectra wrote are the hashes Folio computes
// for the documents it was built from: an unchanged document upserted by
// Folio into a Vectra-made index is recognised.
func TestContentHashMatchesVectraCatalog(t *testing.T) {
	dir := docTestFixtureDir(t)
	var inputs struct {
		Documents struct {
			List []struct {
				URI      string   `json:"uri"`
				Text     string   `json:"text"`
				DocType  string   `json:"docType"`
				Metadata Metadata `json:"metadata"`
			} `json:"list"`
		} `json:"documents"`
	}
	docTestReadJSON(t, filepath.Join(dir, "inputs.json"), &inputs)
	var catalog struct {
		URIToHash map[string]string `json:"uriToHash"`
	}
	docTestReadJSON(t, filepath.Join(dir, "docs-json", "catalog.json"), &catalog)
	if len(inputs.Documents.List) == 0 || len(catalog.URIToHash) != len(inputs.Documents.List) {
		t.Fatalf("%d documents, %d hashes", len(inputs.Documents.List), len(catalog.URIToHash))
	}
	for _, d := range inputs.Documents.List {
		t.Run(d.URI, func(t *testing.T) {
			want, ok := catalog.URIToHash[d.URI]
			if !ok {
				t.Fatalf("no hash for %q in the catalog", d.URI)
			}
			if got := mustContentHash(t, d.Text, d.DocType, d.Metadata); got != want {
				t.Fatalf("hash = %s, catalog has %s", got, want)
			}
		})
	}
}

// compareUTF16Reference compares the strings' UTF-16 encodings unit by unit.
func compareUTF16Reference(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareUTF16OrdersAsJavaScriptSorts(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"ASCII by bytes", "a", "b", -1},
		{"prefix first", "a", "aa", -1},
		{"equal", "é", "é", 0},
		{"astral before U+E000 (surrogates are 0xD800-0xDFFF)", "\U0001F600", "\uE000", -1},
		{"astral before U+FF01", "\U00010000", "\uFF01", -1},
		{"U+D7FF before astral", "\uD7FF", "\U00010000", -1},
		{"astral by code point", "\U0001F4DA", "\U0001F600", -1},
		{"empty first", "", "a", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := compareUTF16(tc.a, tc.b); sign(got) != tc.want {
				t.Fatalf("compareUTF16(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := compareUTF16(tc.b, tc.a); sign(got) != -tc.want {
				t.Fatalf("compareUTF16(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
			}
		})
	}
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func TestCompareUTF16MatchesUTF16EncodingsOnRandomStrings(t *testing.T) {
	alphabet := []rune{'a', 'b', 'Z', 'é', '\u00ff', '\uD7FF', '\uE000', '\uFF01', '\uFFFD', '\U00010000', '\U0001F600', '\U0010FFFF'}
	r := rand.New(rand.NewPCG(4, 4))
	gen := func() string {
		rs := make([]rune, r.IntN(5))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for range 20000 {
		a, b := gen(), gen()
		if got, want := sign(compareUTF16(a, b)), compareUTF16Reference(a, b); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func FuzzCompareUTF16(f *testing.F) {
	f.Add("a", "b")
	f.Add("\U0001F600", "\uFF01")
	f.Add("\xff", "\xfe")
	f.Add("", "\x00")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := compareUTF16(a, b)
		if sign(got) != -sign(compareUTF16(b, a)) {
			t.Fatalf("not antisymmetric: %q %q", a, b)
		}
		if (got == 0) != (a == b) {
			t.Fatalf("compareUTF16(%q, %q) = %d", a, b, got)
		}
		if utf8.ValidString(a) && utf8.ValidString(b) {
			if want := compareUTF16Reference(a, b); sign(got) != want {
				t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	})
}

func TestHashAppendNumberWritesES6Text(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {negZero(), "0"}, {1, "1"}, {-7, "-7"}, {0.1, "0.1"}, {2024, "2024"},
		{1e21, "1e+21"}, {999999999999999900000, "999999999999999900000"}, {1e-7, "1e-7"},
		{0.000001, "0.000001"}, {-1.5e-10, "-1.5e-10"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {123e-20, "1.23e-18"},
	}
	for _, tc := range tests {
		if got := string(hashAppendNumber(nil, tc.in)); got != tc.want {
			t.Errorf("hashAppendNumber(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}
