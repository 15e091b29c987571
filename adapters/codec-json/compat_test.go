package codecjson_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/testkit"
)

// Byte compatibility with the files Vectra wrote.
//
// Folio cannot always give back Vectra's exact bytes, for two reasons:
//   - Vectra writes object keys in insertion order; a Go map has none, so
//     Folio writes map-like objects (metadata, catalog maps) with array-index
//     keys first in numeric order, then the rest in byte order. Vectra's
//     side-cars and catalogs list keys in the order the user gave them.
//   - Vectra writes vectors at float64 precision; Folio holds them as float32
//     and writes the shortest text of the float32.
//
// So the test rewrites Vectra's file into the form those two rules predict,
// and asserts that Folio's output equals it byte for byte. Everything else
// is kept as Vectra wrote it: the order of the fixed keys ("version",
// "metadata_config", "items"; "id", "metadata", "vector", "norm",
// "metadataFile"; "version", "count", "uriToId", "idToUri", "uriToHash"), the
// text of every other number (norms, metadata numbers, versions), and the
// escaping of every string. The expected form is built independently of the
// codec: encoding/json's token stream, encoding/json's float32 formatting
// (which follows the same ECMAScript rules) for the vectors.
func TestReencodingVectraFilesGivesVectraBytes(t *testing.T) {
	c := codecjson.New()
	type file struct {
		folder, name string
	}
	var files []file
	for _, folder := range []string{"items-json", "docs-json"} {
		for _, name := range jsonFiles(t, folder) {
			files = append(files, file{folder, name})
		}
	}
	// Vectra's protobuf codec writes side-car and document metadata as JSON
	// text too, in .pb files.
	for _, folder := range []string{"items-protobuf", "items-migrated-protobuf", "docs-protobuf"} {
		names, err := filepath.Glob(filepath.Join(testkit.FixtureDir(t), folder, "*.pb"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, name := range names {
			if base := filepath.Base(name); base != "index.pb" && base != "catalog.pb" {
				files = append(files, file{folder, base})
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no metadata .pb files in %s", folder)
		}
	}
	identical := 0
	for _, f := range files {
		t.Run(f.folder+"/"+f.name, func(t *testing.T) {
			original := testkit.ReadFixture(t, f.folder, f.name)
			var (
				got    []byte
				err    error
				layout shape
			)
			switch f.name {
			case "index.json":
				layout = indexShape
				d, derr := c.DeserializeIndex(original)
				if derr != nil {
					t.Fatal(derr)
				}
				got, err = c.SerializeIndex(d)
			case "catalog.json":
				layout = catalogShape
				d, derr := c.DeserializeCatalog(original)
				if derr != nil {
					t.Fatal(derr)
				}
				got, err = c.SerializeCatalog(d)
			default:
				layout = mapShape
				m, derr := c.DeserializeMetadata(original)
				if derr != nil {
					t.Fatal(derr)
				}
				got, err = c.SerializeMetadata(m)
			}
			if err != nil {
				t.Fatal(err)
			}
			want := canonical(t, original, layout)
			if !bytes.Equal(got, want) {
				t.Fatalf("re-encoded file differs from Vectra's (keys reordered, vectors at float32) at byte %d:\n got: %s\nwant: %s",
					firstDiff(got, want), around(got, firstDiff(got, want)), around(want, firstDiff(got, want)))
			}
			if bytes.Equal(got, original) {
				identical++
			}
		})
	}
	// Files whose keys Vectra happened to write in Folio's order, and that
	// hold no vectors, must come back identical.
	if identical == 0 {
		t.Errorf("no fixture file re-encoded to identical bytes, want at least the sorted document metadata files")
	}
	t.Logf("%d of %d files re-encoded to Vectra's exact bytes", identical, len(files))
}

// shape says, for a node at a path, whether its object keys are fixed
// (kept in order) and whether it is a vector.
type shape func(path []string) (fixedKeys, vector bool)

func indexShape(path []string) (bool, bool) {
	switch {
	case len(path) == 0, len(path) == 1 && path[0] == "metadata_config":
		return true, false
	case len(path) == 2 && path[0] == "items":
		return true, false
	case len(path) == 3 && path[0] == "items" && path[2] == "vector":
		return false, true
	}
	return false, false
}

func catalogShape(path []string) (bool, bool) { return len(path) == 0, false }

func mapShape([]string) (bool, bool) { return false, false }

// canonical rewrites Vectra's JSON text into the bytes Folio is expected to
// write for it: map-like objects with array-index keys first (numerically)
// and the rest in byte order; vector components as the shortest float32
// text (null as 0, -0 as 0); every other token exactly as in src.
func canonical(t *testing.T, src []byte, layout shape) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := rewrite(&out, src, nil, layout); err != nil {
		t.Fatalf("canonical form: %v", err)
	}
	return out.Bytes()
}

func rewrite(out *bytes.Buffer, src []byte, path []string, layout shape) error {
	src = bytes.TrimSpace(src)
	fixed, vector := layout(path)
	switch {
	case len(src) > 0 && src[0] == '{':
		type member struct {
			key string
			raw []byte // the key as written
			val json.RawMessage
		}
		var members []member
		dec := json.NewDecoder(bytes.NewReader(src))
		if _, err := dec.Token(); err != nil {
			return err
		}
		for dec.More() {
			before := dec.InputOffset()
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			rawKey := bytes.TrimLeft(src[before:dec.InputOffset()], ", \t\r\n")
			var val json.RawMessage
			if err := dec.Decode(&val); err != nil {
				return err
			}
			members = append(members, member{tok.(string), rawKey, val})
		}
		if !fixed {
			slices.SortStableFunc(members, func(a, b member) int { return jsKeyOrder(a.key, b.key) })
		}
		out.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				out.WriteByte(',')
			}
			out.Write(m.raw)
			out.WriteByte(':')
			if err := rewrite(out, m.val, append(slices.Clip(path), m.key), layout); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case len(src) > 0 && src[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(src, &elems); err != nil {
			return err
		}
		out.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				out.WriteByte(',')
			}
			if vector {
				out.Write(float32Text(e))
				continue
			}
			if err := rewrite(out, e, append(slices.Clip(path), strconv.Itoa(i)), layout); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	default:
		out.Write(src)
	}
	return nil
}

// float32Text is a vector component as Folio writes it: the float32
// nearest to the number Vectra wrote, in encoding/json's float32 form.
func float32Text(raw []byte) []byte {
	if string(raw) == "null" {
		return []byte("0")
	}
	f, err := strconv.ParseFloat(string(raw), 32)
	if err != nil {
		return []byte("<bad number " + string(raw) + ">")
	}
	x := float32(f)
	if x == 0 {
		return []byte("0")
	}
	b, err := json.Marshal(x)
	if err != nil || math.IsInf(float64(x), 0) {
		return []byte("<bad number " + string(raw) + ">")
	}
	return b
}

// jsKeyOrder orders keys as a JavaScript object lists them: array indexes
// (canonical decimals below 2^32-1) first by value, then the rest by bytes.
func jsKeyOrder(a, b string) int {
	ai, aok := jsIndex(a)
	bi, bok := jsIndex(b)
	switch {
	case aok && bok:
		return cmp.Compare(ai, bi)
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

func jsIndex(k string) (uint64, bool) {
	n, err := strconv.ParseUint(k, 10, 32)
	return n, err == nil && strconv.FormatUint(n, 10) == k && n < math.MaxUint32
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) string {
	lo, hi := max(0, i-60), min(len(b), i+60)
	return fmt.Sprintf("…%s…", b[lo:hi])
}
