package filetree_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foliovec/folio/core/filetree"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := bytes.Repeat([]byte("line of text\n"), 2000) // 26 KB: past the sniffed head
	nulLate := append(bytes.Repeat([]byte("a"), 9000), 0)
	for _, tc := range []struct {
		name    string
		path    string
		opts    *filetree.ReadOptions
		want    []byte
		wantErr error
	}{
		{"text reads whole", write("a.txt", text), nil, text, nil},
		{"an empty file is empty text", write("empty.txt", nil), nil, []byte{}, nil},
		{"a NUL byte in the head is binary", write("b.txt", []byte("ab\x00c")), nil, nil, filetree.ErrBinary},
		{"a NUL byte past the head is text", write("late.txt", nulLate), nil, nulLate, nil},
		{"the extension is the caller's to judge", write("c.png", []byte("text")), nil, []byte("text"), nil},
		{"IncludeBinary reads binary files", write("d.txt", []byte("x\x00")), &filetree.ReadOptions{IncludeBinary: true}, []byte("x\x00"), nil},
		{"over the cap is too large", write("big.txt", text), &filetree.ReadOptions{MaxBytes: 1000}, nil, filetree.ErrTooLarge},
		{"at the cap reads", write("cap.txt", text[:1000]), &filetree.ReadOptions{MaxBytes: 1000}, text[:1000], nil},
		{"a negative cap is none", write("nocap.txt", text), &filetree.ReadOptions{MaxBytes: -1}, text, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := filetree.ReadFile(tc.path, tc.opts)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == nil && !bytes.Equal(got, tc.want) {
				t.Errorf("read %d bytes, want %d", len(got), len(tc.want))
			}
		})
	}
	if _, err := filetree.ReadFile(filepath.Join(dir, "none.txt"), nil); !filetree.Missing(err) {
		t.Errorf("a missing file: %v", err)
	}
}

// A huge sparse file is judged without being read: by its size over the
// cap, or, with no cap, by the NUL bytes of its first 8 KiB.
func TestReadFileDoesNotReadAHugeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	for _, tc := range []struct {
		opts *filetree.ReadOptions
		want error
	}{{nil, filetree.ErrTooLarge}, {&filetree.ReadOptions{MaxBytes: -1}, filetree.ErrBinary}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := filetree.ReadFile(p, tc.opts)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) {
			t.Errorf("err = %v, want %v", err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("allocated %d bytes to judge a 2 GB file", grew)
		}
	}
}
