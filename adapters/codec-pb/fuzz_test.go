package codecpb_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// Every decoder keeps codectest's rules for any bytes (CheckIndexBytes and
// the others).

func seedWithFixtures(f *testing.F, files ...string) {
	for _, name := range files {
		raw := testkit.ReadFixture(f, name)
		f.Add(raw)
		f.Add(raw[:len(raw)/2])
		if len(raw) > 0 {
			flipped := append([]byte(nil), raw...)
			flipped[len(flipped)/3] ^= 0x5a
			f.Add(flipped)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0x00})
	f.Add([]byte{0x0b})                   // start group, never closed
	f.Add([]byte{0x1a, 0x05, 0x1a, 0x03}) // item with a truncated vector
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
}

func FuzzDeserializeIndex(f *testing.F) {
	seedWithFixtures(f, "items-protobuf/index.pb", "items-migrated-protobuf/index.pb", "docs-protobuf/index.pb")
	f.Add(rawIndex(rawItem("a", []float32{1, 2}), rawItem("b", float32(3), []float32{4}), rawItem("c", float32(5), float32(6))))
	f.Add(rawIndex(rawItem("a", []float32{1, 2}), rawItem("b", []float32{3}), rawItem("c")))
	f.Add(rawIndex(rawItem("a"), rawItem("b", float32(1))))
	c := codecpb.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, _, err := codectest.CheckIndexBytes(c, b); err != nil {
			t.Fatal(err)
		}
	})
}

// The streaming decoder decodes every input as DeserializeIndexArena does:
// the same items, arena and errors, whatever the reads' sizes.
func FuzzDecodeIndexFrom(f *testing.F) {
	seedWithFixtures(f, "items-protobuf/index.pb", "items-migrated-protobuf/index.pb", "docs-protobuf/index.pb")
	f.Add(rawIndex(rawItem("a", []float32{1, 2}), rawItem("b", float32(3), []float32{4}), rawItem("c", float32(5), float32(6))))
	f.Add(rawIndex(rawItem("a", []float32{1, 2}), rawItem("b", []float32{3}), rawItem("c")))
	f.Add(rawIndex(rawItem("a"), rawItem("b", float32(1))))
	f.Add([]byte{0x1b, 0x08, 0x01, 0x1c}) // a group, skipped
	f.Fuzz(func(t *testing.T, b []byte) {
		c := codecpb.New()
		want, wantArena, wantErr := c.DeserializeIndexArena(b)
		for _, r := range []io.Reader{bytes.NewReader(b), iotest.OneByteReader(bytes.NewReader(b))} {
			got, arena, err := c.DecodeIndexFrom(r, int64(len(b)))
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("DecodeIndexFrom error %v, DeserializeIndexArena error %v", err, wantErr)
			}
			if err != nil {
				if !errors.Is(err, core.ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("DecodeIndexFrom = %#v, DeserializeIndexArena = %#v", got, want)
			}
			if !reflect.DeepEqual(arena, wantArena) {
				t.Fatalf("arena %v, DeserializeIndexArena's %v", arena, wantArena)
			}
			if err := codectest.CheckArena(got.Items, arena); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzDeserializeCatalog(f *testing.F) {
	seedWithFixtures(f, "docs-protobuf/catalog.pb")
	c := codecpb.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := codectest.CheckCatalogBytes(c, b); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDeserializeMetadata(f *testing.F) {
	seedWithFixtures(f,
		"items-protobuf/00000001-0000-4000-8000-000000000001.pb",
		"items-protobuf/00000001-0000-4000-8000-00000000002d.pb",
		"docs-protobuf/00000002-0000-4000-8000-00000000002b.pb",
	)
	f.Add([]byte(`{"a":[1,{"b":null}],"c":"\u2028\ud800","d":-0,"e":1e-7}`))
	f.Add([]byte(strings.Repeat("[", 5000) + strings.Repeat("]", 5000)))
	c := codecpb.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := codectest.CheckMetadataBytes(c, b); err != nil {
			t.Fatal(err)
		}
	})
}

// Metadata nested as deep as encoding/json accepts still encodes again.
func TestDeeplyNestedMetadataRoundTrips(t *testing.T) {
	const depth = 9990
	in := `{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
	c := codecpb.New()
	m, err := c.DeserializeMetadata([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.SerializeMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("re-encoded text differs")
	}
}

func TestCorruptIndexAndCatalogBytes(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"a truncated tag", []byte{0x80}},
		{"field number 0", []byte{0x00, 0x01}},
		{"a length past the end", []byte{0x1a, 0x05, 0x0a}},
		{"an unterminated group", []byte{0x0b}},
		{"a stray end group", []byte{0x0c}},
		{"a truncated fixed64", []byte{0x1a, 0x03, 0x21, 0x00, 0x00}},
		{"a packed vector not a multiple of 4", []byte{0x1a, 0x05, 0x1a, 0x03, 0x00, 0x00, 0x00}},
		{"a varint of 11 bytes", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"a bad map entry inside a catalog map", []byte{0x1a, 0x02, 0x0a, 0x05}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codecpb.New()
			_, err := c.DeserializeIndex(tt.b)
			if tt.name == "a bad map entry inside a catalog map" {
				_, err = c.DeserializeCatalog(tt.b)
			}
			if !errors.Is(err, core.ErrCorrupt) {
				t.Errorf("error = %v, want ErrCorrupt", err)
			}
		})
	}
}
