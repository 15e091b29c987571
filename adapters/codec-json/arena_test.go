package codecjson_test

import (
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
)

func TestDeserializeIndexArena(t *testing.T) {
	codectest.RunArenaCases(t, codecjson.New(), []codectest.ArenaCase{
		{Name: "vectors of one length are the arena's rows, in item order",
			In:   []byte(`{"version":1,"metadata_config":{},"items":[{"id":"a","metadata":{},"vector":[1,2,3],"norm":1},{"id":"b","metadata":{},"vector":[4,5,6],"norm":1},{"id":"c","metadata":{},"vector":[7,8,9],"norm":1}]}`),
			Want: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Name: "null inside a vector is 0 in its row",
			In:   []byte(`{"items":[{"id":"a","vector":[1,null]},{"id":"b","vector":[null,4]}]}`),
			Want: []float32{1, 0, 0, 4}},
		{Name: "any layout fills the arena (the general path)",
			In:   []byte("{ \"items\" : [ { \"vector\" : [ 1 , 2 ] , \"id\" : \"a\" } ,\n { \"id\" : \"b\" , \"vector\" : [3,4] } ] }"),
			Want: []float32{1, 2, 3, 4}},
		{Name: "item separators inside metadata do not move rows",
			In:   []byte(`{"items":[{"id":"a","metadata":{"x":[{"y":1},{"id":2}]},"vector":[1]},{"id":"b","vector":[2]}]}`),
			Want: []float32{1, 2}},
		{Name: "a repeated vector key: the last one fills the row",
			In:   []byte(`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[9],"vector":[3,4]},{"id":"c","vector":[9,9,9],"vector":[5,6]}]}`),
			Want: []float32{1, 2, 3, 4, 5, 6}},
		{Name: "a repeated vector key ending with another length gives no arena",
			In:   []byte(`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3,4],"vector":[9,9,9]}]}`),
			Want: nil},
		{Name: "a shorter vector after the first gives no arena",
			In:   []byte(`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3]}]}`),
			Want: nil},
		{Name: "a longer vector after the first gives no arena",
			In:   []byte(`{"items":[{"id":"a","vector":[1]},{"id":"b","vector":[2,3]},{"id":"c","vector":[4]}]}`),
			Want: nil},
		{Name: "a null vector among others gives no arena",
			In:   []byte(`{"items":[{"id":"a","vector":[1]},{"id":"b","vector":null}]}`),
			Want: nil},
		{Name: "a first item without a vector gives no arena when others have one",
			In:   []byte(`{"items":[{"id":"a"},{"id":"b","vector":[1]}]}`),
			Want: nil},
		{Name: "items without vectors give an empty arena",
			In:   []byte(`{"items":[{"id":"a"},{"id":"b","vector":null},{"id":"c","vector":[]}]}`),
			Want: []float32{}},
		{Name: "an index without items gives an empty arena",
			In:   []byte(`{"version":1,"metadata_config":{},"items":[]}`),
			Want: []float32{}},
		{Name: "null items give an empty arena",
			In:   []byte(`{"version":1,"items":null}`),
			Want: []float32{}},
		{Name: "missing items give an empty arena",
			In:   []byte(`{}`),
			Want: []float32{}},
	})
}

// A first vector too long for the rest of the file to hold one as long per
// item must not size the arena (here it would be 400 GB); the index still
// decodes.
func TestLongFirstVectorDoesNotSizeTheArena(t *testing.T) {
	const n, d = 100_000, 1_000_000
	var b strings.Builder
	b.WriteString(`{"items":[{"id":"a","vector":[0`)
	b.WriteString(strings.Repeat(",0", d-1))
	b.WriteString(`]}`)
	b.WriteString(strings.Repeat(`,{"id":"b"}`, n-1))
	b.WriteString(`]}`)
	got, arena, err := codecjson.New().DeserializeIndexArena([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if arena != nil || len(got.Items) != n || len(got.Items[0].Vector) != d || got.Items[1].Vector != nil {
		t.Errorf("got %d items, first vector of %d, arena of %d", len(got.Items), len(got.Items[0].Vector), len(arena))
	}
}

// Every Vectra fixture decodes the same through both methods.
func TestArenaOfVectraFixtures(t *testing.T) {
	c := codecjson.New()
	for _, folder := range []string{"items-json", "docs-json"} {
		t.Run(folder, func(t *testing.T) {
			raw := testkit.ReadFixture(t, folder, "index.json")
			if _, arena, err := codectest.CheckArenaDecode(c, raw); err != nil {
				t.Fatal(err)
			} else if arena == nil {
				t.Error("Vectra's vectors have one length, yet the arena is nil")
			}
		})
	}
}

func TestDeserializeIndexArenaRejectsCorruptText(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not an object", `[]`},
		{"a truncated file", `{"items":[{"id":"a","vector":[1,2]},{"id":"b","vec`},
		{"a bad first vector", `{"items":[{"id":"a","vector":[1,]}]}`},
		{"a bad vector in a later item", `{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3,"x"]}]}`},
		{"a bad item after a vector of another length", `{"items":[{"id":"a","vector":[1]},{"id":"b","vector":[2,3]},{"id":1}]}`},
		{"a number beyond float32 range", `{"items":[{"id":"a","vector":[1]},{"id":"b","vector":[1e39]}]}`},
	}
	c := codecjson.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := codectest.CheckRejects(c, []byte(tt.in)); err != nil {
				t.Error(err)
			}
		})
	}
}
