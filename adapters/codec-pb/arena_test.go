package codecpb_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

// arenaViolation checks the promise of DeserializeIndexArena: when every
// vector has one length d, the arena holds them row by row (item i's
// vector is arena[i*d:(i+1)*d], its capacity clipped to d) and has
// len(items)*d components; when the lengths differ, the arena is nil. It
// returns what is broken, or "".
func arenaViolation(items []core.IndexItem, arena []float32) string {
	d := 0
	if len(items) > 0 {
		d = len(items[0].Vector)
	}
	for i := range items {
		if len(items[i].Vector) != d {
			if arena != nil {
				return fmt.Sprintf("items[%d] has %d components, items[0] %d, yet the arena is not nil", i, len(items[i].Vector), d)
			}
			return ""
		}
	}
	if arena == nil {
		return "every vector has one length, yet the arena is nil"
	}
	if len(arena) != len(items)*d {
		return fmt.Sprintf("len(arena) = %d, want %d items × %d", len(arena), len(items), d)
	}
	for i, it := range items {
		if d == 0 {
			break
		}
		if &it.Vector[0] != &arena[i*d] {
			return fmt.Sprintf("items[%d].Vector is not row %d of the arena", i, i)
		}
		if cap(it.Vector) != d {
			return fmt.Sprintf("items[%d].Vector has capacity %d, want %d", i, cap(it.Vector), d)
		}
	}
	return ""
}

// rawItem is an IndexItem message whose vector is written as the given
// fields: each []float32 as one packed field, each float32 as an unpacked
// fixed32 field, as other protobuf writers may.
func rawItem(id string, vector ...any) []byte {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendString(b, id)
	for _, v := range vector {
		switch v := v.(type) {
		case []float32:
			var packed []byte
			for _, x := range v {
				packed = protowire.AppendFixed32(packed, math.Float32bits(x))
			}
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, packed)
		case float32:
			b = protowire.AppendTag(b, 3, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(v))
		}
	}
	return b
}

// rawIndex is an IndexData message of the given IndexItem messages.
func rawIndex(items ...[]byte) []byte {
	b := protowire.AppendTag(nil, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 1)
	for _, it := range items {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, it)
	}
	return b
}

func TestDeserializeIndexArena(t *testing.T) {
	encode := func(vectors ...[]float32) []byte {
		d := core.IndexData{Version: 1}
		for i, v := range vectors {
			d.Items = append(d.Items, core.IndexItem{ID: fmt.Sprint("item-", i), Vector: v, Metadata: core.Metadata{"k": float64(i)}})
		}
		b, err := codecpb.New().SerializeIndex(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name      string
		in        []byte
		wantArena []float32 // nil: no arena
	}{
		{"vectors of one length are the arena's rows, in item order",
			encode([]float32{1, 2, 3}, []float32{4, 5, 6}, []float32{7, 8, 9}),
			[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"a vector split over packed and unpacked fields fills its row",
			rawIndex(rawItem("a", []float32{1}, float32(2)), rawItem("b", float32(3), []float32{4})),
			[]float32{1, 2, 3, 4}},
		{"a shorter vector after the first gives no arena",
			encode([]float32{1, 2}, []float32{3}),
			nil},
		{"a longer vector after the first gives no arena",
			encode([]float32{1}, []float32{2, 3}),
			nil},
		{"a longer vector made of unpacked fields gives no arena",
			rawIndex(rawItem("a", float32(1)), rawItem("b", float32(2), float32(3))),
			nil},
		{"an item without a vector among others gives no arena",
			encode([]float32{1, 2}, nil, []float32{3, 4}),
			nil},
		{"items without vectors give an empty arena",
			encode(nil, nil),
			[]float32{}},
		{"an index without items gives an empty arena",
			encode(),
			[]float32{}},
	}
	c := codecpb.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, arena, err := c.DeserializeIndexArena(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if v := arenaViolation(got.Items, arena); v != "" {
				t.Fatal(v)
			}
			if (arena == nil) != (tt.wantArena == nil) || !reflect.DeepEqual([]float32(arena), tt.wantArena) && len(arena)+len(tt.wantArena) > 0 {
				t.Errorf("arena = %#v, want %#v", arena, tt.wantArena)
			}
			want, err := c.DeserializeIndex(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DeserializeIndexArena = %#v, DeserializeIndex = %#v", got, want)
			}
		})
	}
}

// Appending to one item's vector never writes into the next row.
func TestArenaRowsAreCapped(t *testing.T) {
	d, _, err := codecpb.New().DeserializeIndexArena(rawIndex(rawItem("a", []float32{1, 2}), rawItem("b", []float32{3, 4})))
	if err != nil {
		t.Fatal(err)
	}
	_ = append(d.Items[0].Vector, 99)
	if d.Items[1].Vector[0] != 3 {
		t.Errorf("appending to items[0].Vector overwrote items[1].Vector: %v", d.Items[1].Vector)
	}
}

// A first vector too long for the rest of the message to hold one as long
// per item must not size the arena (here it would be 400 GB); the index
// still decodes.
func TestLongFirstVectorDoesNotSizeTheArena(t *testing.T) {
	const n, d = 100_000, 1_000_000
	items := [][]byte{rawItem("a", make([]float32, d))}
	for range n - 1 {
		items = append(items, nil)
	}
	got, arena, err := codecpb.New().DeserializeIndexArena(rawIndex(items...))
	if err != nil {
		t.Fatal(err)
	}
	if arena != nil || len(got.Items) != n || len(got.Items[0].Vector) != d || got.Items[1].Vector != nil {
		t.Errorf("got %d items, first vector of %d, arena of %d", len(got.Items), len(got.Items[0].Vector), len(arena))
	}
}

// Large indexes are decoded in parallel runs: the rows of every run lie in
// one arena, and a vector of another length in the last run still gives
// no arena, as one decoder would.
func TestArenaOfLargeIndexes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 20_011
	in := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: make([]core.IndexItem, n)}
	for i := range in.Items {
		in.Items[i] = core.IndexItem{ID: fmt.Sprint(i), Metadata: core.Metadata{}, Vector: []float32{float32(i), 1, -1}, Norm: 1}
	}
	c := codecpb.New()
	for _, mixed := range []bool{false, true} {
		t.Run(fmt.Sprint("mixed=", mixed), func(t *testing.T) {
			if mixed {
				in.Items[n-2].Vector = in.Items[n-2].Vector[:2]
			}
			b, err := c.SerializeIndex(in)
			if err != nil {
				t.Fatal(err)
			}
			got, arena, err := c.DeserializeIndexArena(b)
			if err != nil {
				t.Fatal(err)
			}
			if v := arenaViolation(got.Items, arena); v != "" {
				t.Fatal(v)
			}
			if (arena == nil) != mixed {
				t.Errorf("arena of %d components, mixed lengths %v", len(arena), mixed)
			}
			want, err := c.DeserializeIndex(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, in) {
				t.Error("DeserializeIndexArena, DeserializeIndex and the encoded index differ")
			}
		})
	}
}

// Every Vectra fixture decodes the same through both methods.
func TestArenaOfVectraFixtures(t *testing.T) {
	c := codecpb.New()
	for _, name := range []string{"items-protobuf/index.pb", "items-migrated-protobuf/index.pb", "docs-protobuf/index.pb"} {
		t.Run(name, func(t *testing.T) {
			raw := readFixture(t, name)
			got, arena, err := c.DeserializeIndexArena(raw)
			if err != nil {
				t.Fatal(err)
			}
			if v := arenaViolation(got.Items, arena); v != "" {
				t.Fatal(v)
			}
			if arena == nil {
				t.Error("Vectra's vectors have one length, yet the arena is nil")
			}
			want, err := c.DeserializeIndex(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Error("DeserializeIndexArena and DeserializeIndex differ")
			}
		})
	}
}

func TestDeserializeIndexArenaRejectsCorruptBytes(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"a truncated tag", []byte{0x80}},
		{"a length past the end", []byte{0x1a, 0x05, 0x0a}},
		{"a packed vector not a multiple of 4 in the first item", []byte{0x1a, 0x05, 0x1a, 0x03, 0x00, 0x00, 0x00}},
		{"a packed vector not a multiple of 4 in a later item", append(rawIndex(rawItem("a", []float32{1})), 0x1a, 0x05, 0x1a, 0x03, 0x00, 0x00, 0x00)},
		{"a truncated field in a later item", append(rawIndex(rawItem("a", []float32{1})), 0x1a, 0x03, 0x21, 0x00, 0x00)},
		{"a truncated field after a vector of another length", append(rawIndex(rawItem("a", []float32{1}), rawItem("b", []float32{1, 2})), 0x1a, 0x03, 0x21, 0x00, 0x00)},
	}
	c := codecpb.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, arena, err := c.DeserializeIndexArena(tt.b)
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error = %v, want ErrCorrupt", err)
			}
			if arena != nil || d.Items != nil {
				t.Errorf("a failed decode returned %d items and an arena of %d", len(d.Items), len(arena))
			}
		})
	}
}
