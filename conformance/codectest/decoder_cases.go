package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/foliovec/folio/core"
)

// decoderCases hold for codecs that implement core.VectorArenaDecoder or
// core.IndexStreamDecoder.
func decoderCases() []rule {
	return []rule{
		{"DeserializeIndexArena decodes as DeserializeIndex, its vectors rows of its arena", needsArena(checkArenaRows)},
		{"DeserializeIndexArena's rows are capped: appending to one leaves the next", needsArena(checkArenaCapped)},
		{"DeserializeIndexArena keeps its promise on a large index, of one length or not", needsArena(checkArenaLarge)},
		{"DeserializeIndexArena and DecodeIndexFrom leave the arena room for inserts (core.ArenaRoom)", needsArena(checkArenaRoom)},
		{"DecodeIndexFrom decodes as DeserializeIndexArena, whatever the reads and the size", needsStream(checkStreamDecodes)},
		{"DecodeIndexFrom returns a failing reader's error", needsStream(checkStreamReaderFails)},
	}
}

func needsArena(run func(t testing.TB, c core.VectorArenaDecoder, ic core.IndexCodec, caps Capabilities)) func(testing.TB, core.IndexCodec, Capabilities) {
	return func(t testing.TB, c core.IndexCodec, caps Capabilities) {
		ad, ok := c.(core.VectorArenaDecoder)
		if !ok {
			t.Skip("the codec does not implement core.VectorArenaDecoder")
		}
		run(t, ad, c, caps)
	}
}

func needsStream(run func(t testing.TB, c core.IndexStreamDecoder, ic core.IndexCodec, caps Capabilities)) func(testing.TB, core.IndexCodec, Capabilities) {
	return func(t testing.TB, c core.IndexCodec, caps Capabilities) {
		sd, ok := c.(core.IndexStreamDecoder)
		if !ok {
			t.Skip("the codec does not implement core.IndexStreamDecoder")
		}
		run(t, sd, c, caps)
	}
}

// CheckArena reports how items and arena, as a VectorArenaDecoder returned
// them, break its promise, or nil: when every vector has one length d, the
// arena holds them row by row (item i's vector is arena[i*d:(i+1)*d], its
// capacity clipped to d) and has len(items)*d components; when the lengths
// differ, the arena is nil. Codec adapters use it in tests of their own.
func CheckArena(items []core.IndexItem, arena []float32) error {
	d := 0
	if len(items) > 0 {
		d = len(items[0].Vector)
	}
	for i := range items {
		if len(items[i].Vector) != d {
			if arena != nil {
				return fmt.Errorf("items[%d] has %d components, items[0] %d, yet the arena is not nil", i, len(items[i].Vector), d)
			}
			return nil
		}
	}
	if arena == nil {
		return errors.New("every vector has one length, yet the arena is nil")
	}
	if len(arena) != len(items)*d {
		return fmt.Errorf("len(arena) = %d, want %d items × %d", len(arena), len(items), d)
	}
	for i, it := range items {
		if d == 0 {
			break
		}
		if &it.Vector[0] != &arena[i*d] {
			return fmt.Errorf("items[%d].Vector is not row %d of the arena", i, i)
		}
		if cap(it.Vector) != d {
			return fmt.Errorf("items[%d].Vector has capacity %d, want %d", i, cap(it.Vector), d)
		}
	}
	return nil
}

// arenaSamples are indexes an arena decoder must serve: vectors of one
// length, of mixed lengths, none at all, no items.
func arenaSamples() map[string]core.IndexData {
	item := func(id string, v []float32) core.IndexItem {
		return core.IndexItem{ID: id, Metadata: core.Metadata{"k": id}, Vector: v, Norm: norm(v)}
	}
	return map[string]core.IndexData{
		"one length":             {Version: 1, Items: []core.IndexItem{item("a", []float32{1, 2, 3}), item("b", []float32{4, 5, 6}), item("c", []float32{7, 8, 9})}},
		"one item":               {Version: 1, Items: []core.IndexItem{item("a", []float32{0.5})}},
		"a shorter vector later": {Version: 1, Items: []core.IndexItem{item("a", []float32{1, 2}), item("b", []float32{3})}},
		"a longer vector later":  {Version: 1, Items: []core.IndexItem{item("a", []float32{1}), item("b", []float32{2, 3}), item("c", []float32{4})}},
		"empty vectors":          {Version: 1, Items: []core.IndexItem{item("a", []float32{}), item("b", []float32{})}},
		"no items":               {Version: 1, Items: []core.IndexItem{}},
		"the sample index":       sampleIndex(),
	}
}

func arenaDecode(c core.VectorArenaDecoder, b []byte) (core.IndexData, []float32, error) {
	var arena []float32
	d, err := guard(func() (core.IndexData, error) {
		d, a, err := c.DeserializeIndexArena(b)
		arena = a
		return d, err
	})
	return d, arena, err
}

func checkArenaRows(t testing.TB, c core.VectorArenaDecoder, ic core.IndexCodec, caps Capabilities) {
	for name, in := range arenaSamples() {
		b, err := encodeIndex(ic, in)
		if err != nil {
			t.Errorf("%s: SerializeIndex: %v", name, err)
			continue
		}
		got, arena, err := arenaDecode(c, b)
		if err != nil {
			t.Errorf("%s: DeserializeIndexArena: %v", name, err)
			continue
		}
		if err := CheckArena(got.Items, arena); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		want, err := decodeIndex(ic, b)
		if err != nil {
			t.Errorf("%s: DeserializeIndex: %v", name, err)
			continue
		}
		if err := diffIndex(want, got, stableHow(caps)); err != nil {
			t.Errorf("%s: DeserializeIndexArena and DeserializeIndex differ: %v", name, err)
		}
	}
}

func checkArenaCapped(t testing.TB, c core.VectorArenaDecoder, ic core.IndexCodec, _ Capabilities) {
	b, err := encodeIndex(ic, arenaSamples()["one length"])
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := arenaDecode(c, b)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(d.Items[0].Vector, 99)
	if d.Items[1].Vector[0] != 4 {
		t.Errorf("appending to items[0].Vector overwrote items[1].Vector: %v", d.Items[1].Vector)
	}
}

// checkArenaRoom decodes 2,000 items of one length: the arena (of
// DeserializeIndexArena, and of DecodeIndexFrom where the codec streams)
// has capacity for core.ArenaRoom rows, so that the first commits after an
// open append their vectors instead of copying every one.
func checkArenaRoom(t testing.TB, c core.VectorArenaDecoder, ic core.IndexCodec, _ Capabilities) {
	const n = 2000
	in := core.IndexData{Version: 1, Items: make([]core.IndexItem, n)}
	for i := range in.Items {
		in.Items[i] = core.IndexItem{ID: fmt.Sprint("i", i), Vector: []float32{float32(i), 1, 2}}
	}
	b, err := encodeIndex(ic, in)
	if err != nil {
		t.Fatal(err)
	}
	arenas := map[string][]float32{}
	if _, arenas["DeserializeIndexArena"], err = arenaDecode(c, b); err != nil {
		t.Fatal(err)
	}
	if sd, ok := ic.(core.IndexStreamDecoder); ok {
		if _, arenas["DecodeIndexFrom"], err = sd.DecodeIndexFrom(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatal(err)
		}
	}
	for name, arena := range arenas {
		if len(arena) != n*3 || cap(arena) < core.ArenaRoom(n)*3 {
			t.Errorf("%s: arena of %d floats, capacity %d; want %d and room for %d", name, len(arena), cap(arena), n*3, core.ArenaRoom(n)*3)
		}
	}
}

// CheckRejects reports how c fails to refuse raw, or nil: DeserializeIndex
// and, where c has them, DeserializeIndexArena and DecodeIndexFrom must
// fail with an error wrapping core.ErrCorrupt, returning neither items nor
// an arena. Codec adapters use it for their own corrupt inputs.
func CheckRejects(c core.IndexCodec, raw []byte) error {
	type decode func() (core.IndexData, []float32, error)
	decoders := map[string]decode{"DeserializeIndex": func() (core.IndexData, []float32, error) {
		d, err := guard(func() (core.IndexData, error) { return c.DeserializeIndex(raw) })
		return d, nil, err
	}}
	if ad, ok := c.(core.VectorArenaDecoder); ok {
		decoders["DeserializeIndexArena"] = func() (core.IndexData, []float32, error) { return arenaDecode(ad, raw) }
	}
	if sd, ok := c.(core.IndexStreamDecoder); ok {
		decoders["DecodeIndexFrom"] = func() (core.IndexData, []float32, error) {
			return sd.DecodeIndexFrom(bytes.NewReader(raw), int64(len(raw)))
		}
	}
	for name, dec := range decoders {
		d, arena, err := dec()
		if !errors.Is(err, core.ErrCorrupt) {
			return fmt.Errorf("%s: error %v, want one wrapping core.ErrCorrupt", name, err)
		}
		if arena != nil || d.Items != nil {
			return fmt.Errorf("%s failed, yet returned %d items and an arena of %d", name, len(d.Items), len(arena))
		}
	}
	return nil
}

// checkArenaLarge decodes an index large enough for a decoder to split it
// into parallel runs; a vector of another length in the last run must
// still give no arena, as one run would.
func checkArenaLarge(t testing.TB, c core.VectorArenaDecoder, ic core.IndexCodec, caps Capabilities) {
	const n, dims = 20_011, 16
	in := core.IndexData{Version: 1, Items: make([]core.IndexItem, n)}
	for i := range in.Items {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(i*dims+j) / 7
		}
		in.Items[i] = core.IndexItem{ID: fmt.Sprint(i), Metadata: core.Metadata{}, Vector: v, Norm: norm(v)}
	}
	for _, mixed := range []bool{false, true} {
		if mixed {
			in.Items[n-2].Vector = in.Items[n-2].Vector[:dims-1]
		}
		b, err := encodeIndex(ic, in)
		if err != nil {
			t.Fatal(err)
		}
		got, arena, err := arenaDecode(c, b)
		if err != nil {
			t.Fatalf("mixed %v: %v", mixed, err)
		}
		if err := CheckArena(got.Items, arena); err != nil {
			t.Errorf("mixed %v: %v", mixed, err)
		}
		if (arena == nil) != mixed {
			t.Errorf("mixed %v: arena of %d components", mixed, len(arena))
		}
		if err := diffIndex(in, got, indexHow(caps)); err != nil {
			t.Errorf("mixed %v: the decoded index differs from the encoded one: %v", mixed, err)
		}
	}
}

func streamDecode(c core.IndexStreamDecoder, r io.Reader, size int64) (core.IndexData, []float32, error) {
	var arena []float32
	d, err := guard(func() (core.IndexData, error) {
		d, a, err := c.DecodeIndexFrom(r, size)
		arena = a
		return d, err
	})
	return d, arena, err
}

func checkStreamDecodes(t testing.TB, c core.IndexStreamDecoder, ic core.IndexCodec, caps Capabilities) {
	for name, in := range arenaSamples() {
		b, err := encodeIndex(ic, in)
		if err != nil {
			t.Errorf("%s: SerializeIndex: %v", name, err)
			continue
		}
		want, err := decodeIndex(ic, b)
		if err != nil {
			t.Errorf("%s: DeserializeIndex: %v", name, err)
			continue
		}
		for how, read := range map[string]func() (io.Reader, int64){
			"whole, size known":   func() (io.Reader, int64) { return bytes.NewReader(b), int64(len(b)) },
			"whole, size unknown": func() (io.Reader, int64) { return bytes.NewReader(b), -1 },
			"a byte at a time":    func() (io.Reader, int64) { return iotest.OneByteReader(bytes.NewReader(b)), int64(len(b)) },
			"half reads":          func() (io.Reader, int64) { return iotest.HalfReader(bytes.NewReader(b)), -1 },
		} {
			r, size := read()
			got, arena, err := streamDecode(c, r, size)
			if err != nil {
				t.Errorf("%s, %s: DecodeIndexFrom: %v", name, how, err)
				continue
			}
			if err := CheckArena(got.Items, arena); err != nil {
				t.Errorf("%s, %s: %v", name, how, err)
			}
			if err := diffIndex(want, got, stableHow(caps)); err != nil {
				t.Errorf("%s, %s: DecodeIndexFrom and DeserializeIndex differ: %v", name, how, err)
			}
		}
	}
}

var errReader = errors.New("codectest: the reader failed")

func checkStreamReaderFails(t testing.TB, c core.IndexStreamDecoder, ic core.IndexCodec, _ Capabilities) {
	b, err := encodeIndex(ic, sampleIndex())
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, len(b) / 2, len(b) - 1} {
		r := io.MultiReader(bytes.NewReader(b[:at]), iotest.ErrReader(errReader))
		if _, _, err := streamDecode(c, r, int64(len(b))); !errors.Is(err, errReader) {
			t.Errorf("a reader failing after %d of %d bytes: DecodeIndexFrom = %v, want its error", at, len(b), err)
		}
	}
}

// ArenaCodec is a codec with an arena decoder.
type ArenaCodec interface {
	core.IndexCodec
	core.VectorArenaDecoder
}

// CheckArenaDecode decodes b with c's DeserializeIndexArena and returns its
// result, with an error when it fails, when it differs from what
// DeserializeIndex decodes (reflect.DeepEqual), or when the arena breaks
// its promise (CheckArena). Codec adapters use it on inputs of their own
// format, Vectra's fixtures among them.
func CheckArenaDecode(c ArenaCodec, b []byte) (core.IndexData, []float32, error) {
	got, arena, err := arenaDecode(c, b)
	if err != nil {
		return got, arena, fmt.Errorf("DeserializeIndexArena: %w", err)
	}
	if err := CheckArena(got.Items, arena); err != nil {
		return got, arena, err
	}
	want, err := decodeIndex(c, b)
	if err != nil {
		return got, arena, fmt.Errorf("DeserializeIndex fails where DeserializeIndexArena succeeds: %w", err)
	}
	if !reflect.DeepEqual(got, want) {
		return got, arena, fmt.Errorf("DeserializeIndexArena = %#v, DeserializeIndex = %#v", got, want)
	}
	return got, arena, nil
}

// ArenaCase is an input of a codec's own format and the arena its
// DeserializeIndexArena must return (nil: no arena, as for vectors of mixed
// lengths).
type ArenaCase struct {
	Name string
	In   []byte
	Want []float32
}

// RunArenaCases runs each case as a subtest of t: CheckArenaDecode, then
// the arena against the case's.
func RunArenaCases(t *testing.T, c ArenaCodec, cases []ArenaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, arena, err := CheckArenaDecode(c, tc.In)
			if err != nil {
				t.Fatal(err)
			}
			if (arena == nil) != (tc.Want == nil) || len(arena)+len(tc.Want) > 0 && !reflect.DeepEqual(arena, tc.Want) {
				t.Errorf("arena = %#v, want %#v", arena, tc.Want)
			}
		})
	}
}
