package bm25

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func sampleFile() *File {
	return &File{
		Terms: []string{"cat", "purr", "über"},
		Chunks: []Chunk{
			{ID: "a", DocID: "d1", Start: 0, End: 41, Length: 3, Terms: []TermFreq{{0, 2}, {1, 1}}},
			{ID: "b", DocID: "d1", Start: 42, End: 90, Length: 0, Terms: []TermFreq{}},
			{ID: "c", DocID: "d2", Start: 7, End: 7, Length: 1, Terms: []TermFreq{{2, 1}}},
		},
	}
}

func TestKeywordFileRoundTrip(t *testing.T) {
	f := sampleFile()
	got, err := Decode(Encode(f))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, f)
	}
	empty, err := Decode(Encode(&File{}))
	if err != nil || len(empty.Terms) != 0 || len(empty.Chunks) != 0 {
		t.Fatalf("empty file: %+v, %v", empty, err)
	}
}

// Every damaged, truncated or foreign file is refused with ErrBadFile.
func TestKeywordFileDamage(t *testing.T) {
	good := Encode(sampleFile())
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x40
		if _, err := Decode(bad); !errors.Is(err, ErrBadFile) {
			t.Fatalf("byte %d flipped: %v, want ErrBadFile", i, err)
		}
	}
	for n := range len(good) {
		if _, err := Decode(good[:n]); !errors.Is(err, ErrBadFile) {
			t.Fatalf("truncated to %d bytes: %v, want ErrBadFile", n, err)
		}
	}
	old := bytes.Clone(good)
	old[len(fileMagic)-1] = 0 // another version
	if _, err := Decode(old); !errors.Is(err, ErrBadFile) {
		t.Fatalf("another version: %v", err)
	}
}

func FuzzKeywordFile(f *testing.F) {
	f.Add(Encode(sampleFile()))
	f.Add(Encode(&File{}))
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("error %v does not wrap ErrBadFile", err)
			}
			return
		}
		if !bytes.Equal(Encode(got), data) {
			t.Fatalf("decoded file does not encode back to its bytes")
		}
	})
}
