package codecjson_test

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/core"
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

func TestDeserializeIndexArena(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantArena []float32 // nil: no arena
	}{
		{"vectors of one length are the arena's rows, in item order",
			`{"version":1,"metadata_config":{},"items":[{"id":"a","metadata":{},"vector":[1,2,3],"norm":1},{"id":"b","metadata":{},"vector":[4,5,6],"norm":1},{"id":"c","metadata":{},"vector":[7,8,9],"norm":1}]}`,
			[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"null inside a vector is 0 in its row",
			`{"items":[{"id":"a","vector":[1,null]},{"id":"b","vector":[null,4]}]}`,
			[]float32{1, 0, 0, 4}},
		{"any layout fills the arena (the general path)",
			"{ \"items\" : [ { \"vector\" : [ 1 , 2 ] , \"id\" : \"a\" } ,\n { \"id\" : \"b\" , \"vector\" : [3,4] } ] }",
			[]float32{1, 2, 3, 4}},
		{"item separators inside metadata do not move rows",
			`{"items":[{"id":"a","metadata":{"x":[{"y":1},{"id":2}]},"vector":[1]},{"id":"b","vector":[2]}]}`,
			[]float32{1, 2}},
		{"a repeated vector key: the last one fills the row",
			`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[9],"vector":[3,4]},{"id":"c","vector":[9,9,9],"vector":[5,6]}]}`,
			[]float32{1, 2, 3, 4, 5, 6}},
		{"a repeated vector key ending with another length gives no arena",
			`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3,4],"vector":[9,9,9]}]}`,
			nil},
		{"a shorter vector after the first gives no arena",
			`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3]}]}`,
			nil},
		{"a longer vector after the first gives no arena",
			`{"items":[{"id":"a","vector":[1]},{"id":"b","vector":[2,3]},{"id":"c","vector":[4]}]}`,
			nil},
		{"a null vector among others gives no arena",
			`{"items":[{"id":"a","vector":[1]},{"id":"b","vector":null}]}`,
			nil},
		{"a first item without a vector gives no arena when others have one",
			`{"items":[{"id":"a"},{"id":"b","vector":[1]}]}`,
			nil},
		{"items without vectors give an empty arena",
			`{"items":[{"id":"a"},{"id":"b","vector":null},{"id":"c","vector":[]}]}`,
			[]float32{}},
		{"an index without items gives an empty arena",
			`{"version":1,"metadata_config":{},"items":[]}`,
			[]float32{}},
		{"null items give an empty arena",
			`{"version":1,"items":null}`,
			[]float32{}},
		{"missing items give an empty arena",
			`{}`,
			[]float32{}},
	}
	c := codecjson.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, arena, err := c.DeserializeIndexArena([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if v := arenaViolation(got.Items, arena); v != "" {
				t.Fatal(v)
			}
			if (arena == nil) != (tt.wantArena == nil) || !reflect.DeepEqual([]float32(arena), tt.wantArena) && len(arena)+len(tt.wantArena) > 0 {
				t.Errorf("arena = %#v, want %#v", arena, tt.wantArena)
			}
			want, err := c.DeserializeIndex([]byte(tt.in))
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
	d, _, err := codecjson.New().DeserializeIndexArena([]byte(`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3,4]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = append(d.Items[0].Vector, 99)
	if d.Items[1].Vector[0] != 3 {
		t.Errorf("appending to items[0].Vector overwrote items[1].Vector: %v", d.Items[1].Vector)
	}
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

// Large indexes are decoded in parallel runs: the rows of every run lie in
// one arena, and a vector of another length in the last run still gives
// no arena, as one decoder would.
func TestArenaOfLargeIndexes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n, dims = 20_011, 16
	in := core.IndexData{Version: 1, Items: make([]core.IndexItem, n)}
	for i := range in.Items {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(i*dims+j) / 7
		}
		in.Items[i] = core.IndexItem{ID: fmt.Sprint(i), Metadata: core.Metadata{}, Vector: v, Norm: 1}
	}
	c := codecjson.New()
	for _, mixed := range []bool{false, true} {
		t.Run(fmt.Sprint("mixed=", mixed), func(t *testing.T) {
			if mixed {
				in.Items[n-2].Vector = in.Items[n-2].Vector[:dims-1]
			}
			b, err := c.SerializeIndex(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 3<<20 {
				t.Fatalf("the index is %d bytes, too small for 4 runs", len(b))
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
	c := codecjson.New()
	for _, folder := range []string{"items-json", "docs-json"} {
		t.Run(folder, func(t *testing.T) {
			raw := readFixture(t, folder, "index.json")
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
			d, arena, err := c.DeserializeIndexArena([]byte(tt.in))
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error = %v, want ErrCorrupt", err)
			}
			if arena != nil || d.Items != nil {
				t.Errorf("a failed decode returned %d items and an arena of %d", len(d.Items), len(arena))
			}
		})
	}
}
