package core

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/foliovec/folio/core/internal/segfile"
)

// A 4-bit index reads a large segment's codes, not its vectors, so its
// open does not check them; no write may copy them unchecked. With one
// vector byte of a mapped (or ranged) segment flipped, the 4-bit open
// still answers, but Compact (and so CompactIfDue), Vacuum, a conversion
// to the file layout and a commit that rebuilds the columns fail with
// ErrCorrupt naming it, and leave its file and the manifest as they were, so that an
// exact open still finds the damage (a compaction rewrote it under a fresh
// checksum, and the exact open then accepted it).
func TestNoWriteLaundersADamagedVector(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"mapped", "ranged"} {
		t.Run(kind, func(t *testing.T) {
			var st FileStorage
			var mem *memTestStorage
			switch kind {
			case "mapped":
				m := &mappingTestStorage{memTestStorage: newMemTestStorage()}
				st, mem = m, m.memTestStorage
			default:
				r := &rangingTestStorage{memTestStorage: newMemTestStorage()}
				st, mem = r, r.memTestStorage
			}
			int4 := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4, RetainDropped: -1}
			const n, d = 10_000, 16
			w := newSegmentedIndex(t, int4)
			items := insertRandom(t, w, rand.New(rand.NewPCG(5, 6)), "i", n, d)
			if _, err := w.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			big := idxTestFolder + "/" + w.lay.(*segLayout).man.Segments[0].Name
			for i := range 7 { // seven small segments: the next commit merges them with nothing large
				insertRandom(t, w, rand.New(rand.NewPCG(7, uint64(i))), string(rune('a'+i)), 3, d)
			}
			raw, _ := mem.file(big)
			damaged := bytes.Clone(raw)
			damaged[segfile.HeaderLen+4*d*17+2] ^= 0x10 // a byte of row 17's vector
			mem.put(big, damaged)
			manifest, _ := mem.file(idxTestFolder + "/index.json" + segfile.ManifestExt)
			unchanged := func(what string) {
				t.Helper()
				if now, _ := mem.file(big); !bytes.Equal(now, damaged) {
					t.Fatalf("%s rewrote the damaged segment", what)
				}
				if now, _ := mem.file(idxTestFolder + "/index.json" + segfile.ManifestExt); !bytes.Equal(now, manifest) {
					t.Fatalf("%s changed the manifest", what)
				}
				if _, err := openTestIndex(t, IndexOptions{Storage: st, Codec: jsonTestCodec{}}).GetIndexStats(ctx); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("after %s an exact open: %v, want ErrCorrupt", what, err)
				}
			}
			wantCorrupt := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(w.lay.(*segLayout).man.Segments[0].Name)) {
					t.Fatalf("%s: %v, want ErrCorrupt naming the segment", what, err)
				}
				unchanged(what)
			}
			coded := openTestIndex(t, int4)
			if _, err := coded.QueryItems(ctx, items[3].Vector, "", 5, nil, false); err != nil {
				t.Fatalf("the 4-bit open: %v", err)
			}
			_, err := coded.Compact(ctx)
			wantCorrupt("Compact", err)
			_, err = openTestIndex(t, int4).Vacuum(ctx)
			wantCorrupt("Vacuum", err)
			wantCorrupt("ConvertLayout", openTestIndex(t, int4).ConvertLayout(ctx, LayoutFile))
			// So many deletes rebuild the columns, copying every row: the
			// commit fails. (CompactIfDue is due only past as many
			// tombstones, and runs Compact.)
			ids := make([]string, 0, n/2)
			for _, it := range items[:n/2] {
				ids = append(ids, it.ID)
			}
			wantCorrupt("a commit that rebuilds the columns", openTestIndex(t, int4).DeleteItems(ctx, ids))
			if err := openTestIndex(t, int4).DeleteItem(ctx, items[5].ID); err != nil {
				t.Fatalf("a delete that writes a tombstone: %v", err)
			}
		})
	}
}
