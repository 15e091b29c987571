package codectest_test

import (
	"bytes"
	"io"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// copyingArena is reference.Codec with an arena decoder whose arena is a
// copy: the vectors are not its rows.
type copyingArena struct{ reference.Codec }

func (c copyingArena) DeserializeIndexArena(b []byte) (core.IndexData, []float32, error) {
	d, err := c.DeserializeIndex(b)
	var arena []float32
	for _, it := range d.Items {
		arena = append(arena, it.Vector...)
	}
	if arena == nil {
		arena = []float32{}
	}
	return d, arena, err
}

// placedArena places the rows in an arena with no room after them,
// each row's capacity running into the next unless capped.
type placedArena struct {
	reference.Codec
	capped bool
}

func (c placedArena) DeserializeIndexArena(b []byte) (core.IndexData, []float32, error) {
	d, err := c.DeserializeIndex(b)
	if err != nil || len(d.Items) == 0 {
		return d, []float32{}, err
	}
	dim := len(d.Items[0].Vector)
	arena := make([]float32, 0, len(d.Items)*dim)
	for _, it := range d.Items {
		if len(it.Vector) != dim {
			return d, nil, nil
		}
		arena = append(arena, it.Vector...)
	}
	for i := range d.Items {
		d.Items[i].Vector = arena[i*dim : (i+1)*dim]
		if c.capped {
			d.Items[i].Vector = arena[i*dim : (i+1)*dim : (i+1)*dim]
		}
	}
	return d, arena, nil
}

// swallowingStream decodes a stream but drops its reader's error.
type swallowingStream struct{ reference.Codec }

func (c swallowingStream) DecodeIndexFrom(r io.Reader, _ int64) (core.IndexData, []float32, error) {
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, r)
	d, err := c.DeserializeIndex(buf.Bytes())
	return d, nil, err
}

func decoderBreakages() []breakage {
	return []breakage{
		{name: "an arena that is a copy", codec: copyingArena{},
			rule: "DeserializeIndexArena decodes as DeserializeIndex, its vectors rows of its arena"},
		{name: "rows whose capacity runs into the next", codec: placedArena{},
			rule: "DeserializeIndexArena's rows are capped: appending to one leaves the next"},
		{name: "an arena with no room for inserts", codec: placedArena{capped: true},
			rule: "DeserializeIndexArena and DecodeIndexFrom leave the arena room for inserts (core.ArenaRoom)"},
		{name: "a stream decoder that drops its reader's error", codec: swallowingStream{},
			rule: "DecodeIndexFrom returns a failing reader's error"},
	}
}
