package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// File is the content of a keyword file: the terms of every chunk of an
// index, so that a process can rebuild the keyword index without reading
// and tokenizing the documents again. A chunk is keyed by its item id and
// its span in its document; Terms index File.Terms.
type File struct {
	Terms  []string
	Chunks []Chunk

	local    map[uint32]uint32 // Add's vocabulary id → index in Terms
	vocabIDs []uint32          // Add's vocabulary ids, by index in Terms
}

// Chunk is one chunk's entry.
type Chunk struct {
	ID, DocID  string
	Start, End int
	Length     int32 // terms in the chunk, stop words excluded
	FieldLen   [NumFields - 1]int32
	Terms      []TermFreq
}

// TermFreq is a term and how often a chunk holds it: in a File the term
// is an index into File.Terms, in a Doc a vocabulary id.
type TermFreq struct {
	Term uint32
	TF   uint32
}

// fileMagic starts every keyword file; its last byte is the format's
// version, changed whenever the encoding or the tokenizer changes (an old
// file is then rebuilt, never misread).
const fileMagic = "FOLIOKW\x02"

// ErrBadFile is the error of Decode for bytes that are not a keyword file
// of this version, or are damaged.
var ErrBadFile = errors.New("bm25: not a valid keyword file")

// Encode returns f's bytes: the magic, then unsigned varints (strings as
// their length and bytes), then a CRC-32 (IEEE) of everything before it.
func Encode(f *File) []byte {
	b := make([]byte, 0, 64+len(f.Terms)*8+len(f.Chunks)*96)
	b = append(b, fileMagic...)
	b = binary.AppendUvarint(b, uint64(len(f.Terms)))
	for _, t := range f.Terms {
		b = appendString(b, t)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Chunks)))
	for _, c := range f.Chunks {
		b = appendString(b, c.ID)
		b = appendString(b, c.DocID)
		b = binary.AppendUvarint(b, uint64(c.Start))
		b = binary.AppendUvarint(b, uint64(c.End))
		b = binary.AppendUvarint(b, uint64(c.Length))
		for _, n := range c.FieldLen {
			b = binary.AppendUvarint(b, uint64(n))
		}
		b = binary.AppendUvarint(b, uint64(len(c.Terms)))
		for _, t := range c.Terms {
			b = binary.AppendUvarint(b, uint64(t.Term))
			b = binary.AppendUvarint(b, uint64(t.TF))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode parses the bytes Encode wrote. Anything else, a damaged or
// truncated file included, is an error wrapping ErrBadFile; it never
// panics, and allocates no more than the input's size justifies.
func Decode(data []byte) (*File, error) {
	if len(data) < len(fileMagic)+4 || string(data[:len(fileMagic)]) != fileMagic {
		return nil, fmt.Errorf("%w: no keyword file header", ErrBadFile)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadFile)
	}
	r := reader{b: body[len(fileMagic):]}
	f := &File{}
	// Each term takes at least one byte, each chunk at least nine.
	nTerms := r.count(1)
	f.Terms = make([]string, 0, nTerms)
	for range nTerms {
		f.Terms = append(f.Terms, r.string())
	}
	nChunks := r.count(9)
	f.Chunks = make([]Chunk, 0, nChunks)
	for range nChunks {
		c := Chunk{ID: r.string(), DocID: r.string()}
		c.Start, c.End = r.int(), r.int()
		c.Length = int32(min(r.uvarint(), math.MaxInt32))
		for f := range c.FieldLen {
			c.FieldLen[f] = int32(min(r.uvarint(), math.MaxInt32))
		}
		n := r.count(2)
		c.Terms = make([]TermFreq, n)
		for j := range c.Terms {
			term := r.uvarint()
			if term >= uint64(len(f.Terms)) {
				r.fail()
			}
			c.Terms[j] = TermFreq{Term: uint32(min(term, math.MaxUint32)), TF: uint32(min(r.uvarint(), math.MaxUint32))}
		}
		if r.bad {
			break
		}
		f.Chunks = append(f.Chunks, c)
	}
	if r.bad || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: malformed or trailing data", ErrBadFile)
	}
	return f, nil
}

// reader reads varints; after the first malformed read every read returns
// zero and bad is set.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) fail() { r.bad, r.b = true, nil }

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of entries of at least min bytes each, failing when
// the rest of the input cannot hold that many.
func (r *reader) count(minBytes int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/minBytes) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) int() int {
	v := r.uvarint()
	if v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
