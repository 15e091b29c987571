package codecpb

import (
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/foliovec/folio/core"
)

// interner shares the strings and boxed values of metadata keys and
// values that repeat across the items of one index, so that a category of
// ten values costs ten allocations rather than one per item. It holds at
// most maxInterned entries of at most maxInternedLen bytes.
type interner struct {
	keys    map[string]string
	values  map[string]any
	numbers map[uint64]any           // boxed float64 metadata values by bits
	metas   map[string]core.Metadata // whole metadata maps by their encoded entries
	ids     []byte                   // the block the next item ids are cut from
	none    core.Metadata            // the empty map of items without metadata
}

// empty returns the interner's empty metadata map.
func (in *interner) empty() core.Metadata {
	if in.none == nil {
		in.none = core.Metadata{}
	}
	return in.none
}

const (
	maxInterned    = 4096
	maxInternedLen = 64
	// maxSharedMetaLen is the longest run of encoded metadata entries
	// whose map is shared between the items that have the same bytes.
	maxSharedMetaLen = 512
	// idBlock is the size of the blocks item ids are cut from, and
	// maxBlockID the longest id cut from one.
	idBlock    = 16 << 10
	maxBlockID = 256
)

func newInterner() *interner {
	return &interner{keys: make(map[string]string), values: make(map[string]any), numbers: make(map[uint64]any),
		metas: make(map[string]core.Metadata)}
}

// key returns the string of a metadata key.
func (in *interner) key(b []byte) string {
	if s, ok := in.keys[string(b)]; ok {
		return s
	}
	s := text(b)
	if len(in.keys) < maxInterned && len(b) <= maxInternedLen {
		in.keys[s] = s
	}
	return s
}

// id returns an item id's string, cut from a block shared with the ids
// decoded after it: a million items' ids are a few thousand allocations
// instead of a million, which opening a large index spends its time on.
// A block lives as long as one of its ids does.
func (in *interner) id(b []byte) string {
	if len(b) == 0 || len(b) > maxBlockID || !utf8.Valid(b) {
		return text(b)
	}
	if cap(in.ids)-len(in.ids) < len(b) {
		in.ids = make([]byte, 0, idBlock)
	}
	start := len(in.ids)
	in.ids = append(in.ids, b...)
	return unsafe.String(&in.ids[start], len(b))
}

// value returns a string metadata value, boxed.
func (in *interner) value(b []byte) any {
	if v, ok := in.values[string(b)]; ok {
		return v
	}
	var v any = text(b)
	if len(in.values) < maxInterned && len(b) <= maxInternedLen {
		in.values[v.(string)] = v
	}
	return v
}

// number returns a number metadata value, boxed.
func (in *interner) number(f float64) any {
	bits := math.Float64bits(f)
	if v, ok := in.numbers[bits]; ok {
		return v
	}
	var v any = f
	if len(in.numbers) < maxInterned {
		in.numbers[bits] = v
	}
	return v
}
