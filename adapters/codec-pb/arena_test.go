package codecpb_test

import (
	"fmt"
	"math"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

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
	codectest.RunArenaCases(t, codecpb.New(), []codectest.ArenaCase{
		{Name: "vectors of one length are the arena's rows, in item order",
			In:   encode([]float32{1, 2, 3}, []float32{4, 5, 6}, []float32{7, 8, 9}),
			Want: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Name: "a vector split over packed and unpacked fields fills its row",
			In:   rawIndex(rawItem("a", []float32{1}, float32(2)), rawItem("b", float32(3), []float32{4})),
			Want: []float32{1, 2, 3, 4}},
		{Name: "a shorter vector after the first gives no arena",
			In:   encode([]float32{1, 2}, []float32{3}),
			Want: nil},
		{Name: "a longer vector after the first gives no arena",
			In:   encode([]float32{1}, []float32{2, 3}),
			Want: nil},
		{Name: "a longer vector made of unpacked fields gives no arena",
			In:   rawIndex(rawItem("a", float32(1)), rawItem("b", float32(2), float32(3))),
			Want: nil},
		{Name: "an item without a vector among others gives no arena",
			In:   encode([]float32{1, 2}, nil, []float32{3, 4}),
			Want: nil},
		{Name: "items without vectors give an empty arena",
			In:   encode(nil, nil),
			Want: []float32{}},
		{Name: "an index without items gives an empty arena",
			In:   encode(),
			Want: []float32{}},
	})
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

// Every Vectra fixture decodes the same through both methods.
func TestArenaOfVectraFixtures(t *testing.T) {
	c := codecpb.New()
	for _, name := range []string{"items-protobuf/index.pb", "items-migrated-protobuf/index.pb", "docs-protobuf/index.pb"} {
		t.Run(name, func(t *testing.T) {
			raw := testkit.ReadFixture(t, name)
			if _, arena, err := codectest.CheckArenaDecode(c, raw); err != nil {
				t.Fatal(err)
			} else if arena == nil {
				t.Error("Vectra's vectors have one length, yet the arena is nil")
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
			if err := codectest.CheckRejects(c, tt.b); err != nil {
				t.Error(err)
			}
		})
	}
}
