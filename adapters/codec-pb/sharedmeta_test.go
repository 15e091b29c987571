package codecpb_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// Items whose metadata encodes to the same bytes share one map; others,
// and an item whose entries are split around other fields, get their own,
// with every entry, and the shared map is never changed by them.
func TestDecodedMetadataMapsAreShared(t *testing.T) {
	c := codecpb.New()
	md := func(cat string, year float64) core.Metadata { return core.Metadata{"category": cat, "year": year} }
	raw, err := c.SerializeIndex(core.IndexData{Version: 1, Items: []core.IndexItem{
		{ID: "a", Vector: []float32{1}, Metadata: md("x", 2001)},
		{ID: "b", Vector: []float32{2}, Metadata: md("x", 2001)},
		{ID: "c", Vector: []float32{3}, Metadata: md("y", 2001)},
		{ID: "d", Vector: []float32{4}, Metadata: md("x", 2001)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.DeserializeIndex(raw)
	if err != nil {
		t.Fatal(err)
	}
	ptr := func(i int) uintptr { return reflect.ValueOf(data.Items[i].Metadata).Pointer() }
	if ptr(0) != ptr(1) || ptr(0) != ptr(3) {
		t.Error("items a, b and d have the same metadata bytes but different maps")
	}
	if ptr(0) == ptr(2) {
		t.Error("items a and c share a map but differ")
	}
	if !reflect.DeepEqual(data.Items[2].Metadata, md("y", 2001)) || !reflect.DeepEqual(data.Items[0].Metadata, md("x", 2001)) {
		t.Errorf("metadata %v, %v", data.Items[0].Metadata, data.Items[2].Metadata)
	}

	// An item whose second entry comes after its vector: the first entry
	// alone matches a shared run, the map is cloned before the second.
	entry := func(k, v string) []byte {
		var val, e []byte
		val = protowire.AppendTag(val, 1, protowire.BytesType) // string_value
		val = protowire.AppendString(val, v)
		e = protowire.AppendTag(e, 1, protowire.BytesType) // key
		e = protowire.AppendString(e, k)
		e = protowire.AppendTag(e, 2, protowire.BytesType) // value
		e = protowire.AppendBytes(e, val)
		return protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), e)
	}
	item := func(id string, parts ...[]byte) []byte {
		var it []byte
		it = protowire.AppendTag(it, 1, protowire.BytesType)
		it = protowire.AppendString(it, id)
		for _, p := range parts {
			it = append(it, p...)
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), it)
	}
	vec := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), []byte{0, 0, 0x80, 0x3f})
	both := append(item("a", entry("k", "v"), vec), item("b", entry("k", "v"), vec, entry("z", "w"))...)
	data, err = c.DeserializeIndex(both)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(data.Items[0].Metadata, core.Metadata{"k": "v"}) {
		t.Errorf("first item's metadata %v changed", data.Items[0].Metadata)
	}
	if !reflect.DeepEqual(data.Items[1].Metadata, core.Metadata{"k": "v", "z": "w"}) {
		t.Errorf("split item's metadata %v", data.Items[1].Metadata)
	}
}

// Item ids are cut from shared blocks: decoding a run of items whose
// metadata repeats allocates far less than once per item, and every id
// reads back as written, a long one and one of invalid UTF-8 (replaced, as
// protobuf's own decoder does) among them.
func TestDecodedIDsShareBlocks(t *testing.T) {
	c := codecpb.New()
	const n = 4000
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprintf("item-%d", i), Vector: []float32{float32(i)}, Metadata: core.Metadata{"k": float64(i % 3)}}
	}
	items[7].ID = strings.Repeat("long-", 100)
	raw, err := c.SerializeIndex(core.IndexData{Version: 1, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(raw, []byte("item-9\x12"), []byte("item\xff9\x12"), 1)
	data, err := c.DeserializeIndex(bad)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range data.Items {
		want := items[i].ID
		if i == 9 {
			want = "item\uFFFD9"
		}
		if it.ID != want {
			t.Fatalf("item %d: id %q, want %q", i, it.ID, want)
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := c.DeserializeIndex(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > n/2 {
		t.Errorf("decoding %d items allocated %.0f times", n, allocs)
	}
}

// Items without metadata share one empty map: decoding them allocates far
// less than once per item, and each still reads back with an empty,
// non-nil map, as Vectra's files hold one.
func TestItemsWithoutMetadataShareAnEmptyMap(t *testing.T) {
	c := codecpb.New()
	const n = 4000
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprintf("item-%d", i), Vector: []float32{float32(i)}}
	}
	raw, err := c.SerializeIndex(core.IndexData{Version: 1, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.DeserializeIndex(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range data.Items {
		if it.Metadata == nil || len(it.Metadata) != 0 {
			t.Fatalf("item %d: metadata %v, want an empty map", i, it.Metadata)
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := c.DeserializeIndex(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > n/2 {
		t.Errorf("decoding %d items without metadata allocated %.0f times", n, allocs)
	}
}
