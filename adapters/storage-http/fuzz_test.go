package storagehttp

import (
	"strconv"
	"testing"

	"github.com/foliovec/folio/core"
)

// FuzzParseContentRange checks that any Content-Range either parses into
// a range inside the file, which prints back as it was read, or fails.
func FuzzParseContentRange(f *testing.F) {
	for _, seed := range []string{"bytes 0-99/1000", "bytes */0", "bytes */12", "bytes 5-4/10", "bytes 0-9/5", "bytes -1-3/9", "items 0-1/2", "bytes 0-9223372036854775807/9223372036854775807"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		lo, hi, total, err := parseContentRange(v)
		if err != nil {
			return
		}
		if lo < 0 || hi < lo || hi > total {
			t.Fatalf("%q parsed as %d-%d of %d", v, lo, hi, total)
		}
		var again string
		if hi == 0 {
			again = "bytes */" + strconv.FormatInt(total, 10)
		} else {
			again = "bytes " + strconv.FormatInt(lo, 10) + "-" + strconv.FormatInt(hi-1, 10) + "/" + strconv.FormatInt(total, 10)
		}
		if lo2, hi2, total2, err := parseContentRange(again); err != nil || lo2 != lo || hi2 != hi || total2 != total {
			t.Fatalf("%q parsed as %d-%d/%d, whose form %q parses as %d-%d/%d, %v", v, lo, hi, total, again, lo2, hi2, total2, err)
		}
	})
}

func TestCoalesce(t *testing.T) {
	s := &Storage{opts: Options{CoalesceGap: 10, MaxRequestBytes: 100}}
	parts := []struct{ off, n int64 }{{50, 5}, {0, 10}, {15, 5}, {31, 1}, {52, 10}, {200, 90}, {280, 30}}
	var in []filePartForTest
	for _, p := range parts {
		in = append(in, filePartForTest{p.off, p.n})
	}
	groups := s.coalesce(toParts(in))
	var got [][2]int64
	for _, g := range groups {
		got = append(got, [2]int64{g.lo, g.hi})
	}
	want := [][2]int64{{0, 20}, {31, 32}, {50, 62}, {200, 290}, {280, 310}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}
}

type filePartForTest struct{ off, n int64 }

func toParts(ps []filePartForTest) []core.FilePart {
	out := make([]core.FilePart, len(ps))
	for i, p := range ps {
		out[i] = core.FilePart{P: make([]byte, p.n), Off: p.off}
	}
	return out
}
