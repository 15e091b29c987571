package render

import (
	"slices"
	"unicode/utf8"
)

// Text is a document's text with what it takes to cut it at UTF-16
// offsets (Vectra's positions) without converting the whole text per cut:
// for text that is not all ASCII, the byte offset of every UTF-16 code
// unit, computed once per document.
type Text struct {
	s string
	// at[i] is the byte offset of the character holding UTF-16 unit i
	// (both units of a surrogate pair map to the pair's character), and
	// at[len16] is len(s). nil when s is ASCII: unit i is byte i.
	at []int32
}

// NewText returns s, ready to be cut at UTF-16 offsets.
func NewText(s string) *Text {
	t := &Text{s: s}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return t
	}
	t.at = make([]int32, 0, len(s)+1)
	for i, r := range s {
		t.at = append(t.at, int32(i))
		if r >= 0x10000 {
			t.at = append(t.at, int32(i))
		}
	}
	t.at = append(t.at, int32(len(s)))
	return t
}

// Len16 is the text's length in UTF-16 code units (JavaScript's length).
func (t *Text) Len16() int {
	if t.at == nil {
		return len(t.s)
	}
	return len(t.at) - 1
}

// Substring is JavaScript's text.substring(start, end) on UTF-16 offsets:
// both clamped to [0, len16] and swapped when start > end. An offset inside
// a surrogate pair takes in the whole character (JavaScript would cut it
// into a lone surrogate, which UTF-8 cannot hold).
func (t *Text) Substring(start, end int) string {
	a, b := t.Bytes(start, end)
	return t.s[a:b]
}

// String returns the whole text.
func (t *Text) String() string { return t.s }

// Bytes returns the byte offsets into String() of the UTF-16 offsets start
// and end, clamped and ordered as Substring does: s[Bytes(a, b)] is
// Substring(a, b).
func (t *Text) Bytes(start, end int) (int, int) {
	n := t.Len16()
	start, end = min(max(start, 0), n), min(max(end, 0), n)
	if start > end {
		start, end = end, start
	}
	if t.at == nil {
		return start, end
	}
	b := int(t.at[end])
	if end > 0 && end < n && int(t.at[end-1]) == b {
		b = int(t.at[end+1]) // end falls inside a surrogate pair
	}
	return int(t.at[start]), b
}

// Units is the UTF-16 offset of byte offset b (clamped to the text).
func (t *Text) Units(b int) int {
	b = min(max(b, 0), len(t.s))
	if t.at == nil {
		return b
	}
	i, _ := slices.BinarySearch(t.at, int32(b))
	return i
}
