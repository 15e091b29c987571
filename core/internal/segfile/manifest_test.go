package segfile

import (
	"errors"
	"testing"

	"github.com/foliovec/folio/core/internal/errs"
)

// FuzzDecodeManifest: decoding any bytes as a segments manifest never
// panics and either succeeds with segments in order or fails with
// errs.ErrCorrupt.
func FuzzDecodeManifest(f *testing.F) {
	m := NewManifest(1, []string{"a"})
	m.NextSerial = 10
	m.Segments = []Entry{{Name: "index.json.x.seg", First: 0, Rows: 4}, {Name: "index.json.y.seg", First: 6, Rows: 1, Tombstones: 2}}
	raw, _ := EncodeManifest(m)
	f.Add(raw)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"folio-segments","formatVersion":1,"segments":[{"first":5},{"first":2}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := DecodeManifest(raw)
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("error %v does not wrap errs.ErrCorrupt", err)
			}
			return
		}
		for i, e := range m.Segments {
			if i > 0 && e.First < m.Segments[i-1].First {
				t.Fatal("segments out of order")
			}
			end := m.NextSerial
			if i+1 < len(m.Segments) {
				end = m.Segments[i+1].First
			}
			if uint64(e.Rows) > uint64(end-e.First) || uint64(e.Tombstones) > uint64(e.First) {
				t.Fatalf("segment %d: %d rows and %d tombstones for serials %d to %d", i, e.Rows, e.Tombstones, e.First, end)
			}
		}
	})
}
