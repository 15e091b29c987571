package ivf

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// memSource is rows held in memory.
type memSource struct {
	data []float32
	dim  int
}

func (m memSource) Rows() int {
	if m.dim == 0 {
		return 0
	}
	return len(m.data) / m.dim
}
func (m memSource) Dim() int { return m.dim }
func (m memSource) Read(_ context.Context, dst []float32, i int) error {
	copy(dst, m.data[i*m.dim:(i+1)*m.dim])
	return nil
}
func (m memSource) Each(_ context.Context, lo, hi int, fn func(first int, vals []float32)) error {
	for i := lo; i < hi; i += 100 {
		end := min(i+100, hi)
		fn(i, m.data[i*m.dim:end*m.dim])
	}
	return nil
}

// mixture returns n unit vectors of dim values around centres unit
// centres, their sizes falling as 1/(rank+1) (a few crowded clusters, many
// small ones), each offset from its centre by spread.
func mixture(seed uint64, n, dim, centres int, spread float64) []float32 {
	return draws(seed, seed, n, dim, centres, spread)
}

// draws is mixture with the centres drawn by seed and the vectors by
// stream: another stream gives other vectors of the same mixture.
func draws(seed, stream uint64, n, dim, centres int, spread float64) []float32 {
	cr := rand.New(rand.NewPCG(seed, 7))
	cs := make([]float32, centres*dim)
	for i := range cs {
		cs[i] = float32(cr.NormFloat64())
	}
	r := rand.New(rand.NewPCG(seed, stream))
	normalize(cs, dim)
	out := make([]float32, n*dim)
	noise := spread / math.Sqrt(float64(dim))
	for i := range n {
		c := min(int(math.Exp(r.Float64()*math.Log(float64(centres)+1)))-1, centres-1)
		for j := range dim {
			out[i*dim+j] = cs[c*dim+j] + float32(noise*r.NormFloat64())
		}
	}
	normalize(out, dim)
	return out
}

// exactTop returns the k rows of src most similar to q by dot product,
// the first of equals first.
func exactTop(src memSource, q []float32, k int) []int32 {
	dots := make([]float32, src.Rows())
	vecmath.DotMany(q, src.data, dots)
	top := make([]int32, 0, k+1)
	for i, d := range dots {
		if len(top) == k && d <= dots[top[k-1]] {
			continue
		}
		at := sort.Search(len(top), func(j int) bool { return dots[top[j]] < d })
		top = slices.Insert(top, at, int32(i))
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

func exactTruth(src memSource) Truth {
	return func(_ context.Context, q []float32, k int) ([]int32, error) { return exactTop(src, q, k), nil }
}

// checkLists fails unless p's lists hold every row of 0..n-1 once, each
// list ascending.
func checkLists(t *testing.T, p *Partitions, n int) {
	t.Helper()
	seen := make([]bool, n)
	for c, l := range p.Lists() {
		if !slices.IsSorted(l) {
			t.Fatalf("partition %d is not ascending", c)
		}
		for _, r := range l {
			if r < 0 || int(r) >= n || seen[r] {
				t.Fatalf("row %d is in two partitions or out of range", r)
			}
			seen[r] = true
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Fatalf("row %d is in no partition", i)
	}
}

func TestBuildPutsEveryRowInOnePartition(t *testing.T) {
	ctx := context.Background()
	src := memSource{mixture(1, 20_000, 32, 60, 0.6), 32}
	p, err := Build(ctx, src, PartitionsFor(src.Rows()), 1)
	if err != nil {
		t.Fatal(err)
	}
	checkLists(t, p, src.Rows())
	if p.K() < PartitionsFor(src.Rows())/2 {
		t.Fatalf("%d partitions, want about %d", p.K(), PartitionsFor(src.Rows()))
	}
	// No partition is a hub: the crowded clusters are split.
	share := src.Rows() / p.K()
	if most := slices.Max(p.Sizes()); most > 4*share {
		t.Errorf("largest partition holds %d rows, more than 4× the %d of an even share", most, share)
	}
	again, err := Build(ctx, src, PartitionsFor(src.Rows()), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(p.Lists(), again.Lists(), slices.Equal) {
		t.Error("the same rows and seed gave other partitions")
	}
}

func TestBuildRefusesWhatItCannotPartition(t *testing.T) {
	for _, tc := range []struct {
		src memSource
		k   int
	}{{memSource{nil, 8}, 4}, {memSource{make([]float32, 16), 8}, 0}, {memSource{make([]float32, 16), 0}, 2}} {
		if _, err := Build(context.Background(), tc.src, tc.k, 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("Build(%d values of %d, k %d) = %v, want ErrInvalid", len(tc.src.data), tc.src.dim, tc.k, err)
		}
	}
}

// probedRecall is the mean recall@k of queries over the rows of the
// partitions p chooses for each.
func probedRecall(p *Partitions, src memSource, queries []float32, k int) (recall, read float64) {
	dim := src.dim
	found, total, rows := 0, 0, 0
	for j := 0; j*dim < len(queries); j++ {
		q := queries[j*dim : (j+1)*dim]
		_, parts := p.Choose(q)
		cands := p.RowsOf(parts, nil)
		rows += len(cands)
		for _, t := range exactTop(src, q, k) {
			total++
			if _, ok := slices.BinarySearch(cands, t); ok {
				found++
			}
		}
	}
	n := len(queries) / dim
	return float64(found) / float64(total), float64(rows) / float64(n*src.Rows())
}

func TestCalibrateFindsTheTargetRecall(t *testing.T) {
	ctx := context.Background()
	const dim = 32
	src := memSource{mixture(3, 20_000, dim, 60, 0.6), dim}
	held := draws(3, 99, 200, dim, 60, 0.6) // the same mixture, not rows
	p, err := Build(ctx, src, PartitionsFor(src.Rows()), 3)
	if err != nil {
		t.Fatal(err)
	}
	var lastGap float32 = -1
	for _, target := range []float64{0.9, 0.99, 1} {
		if err := p.Calibrate(ctx, src, 10, target, 3, exactTruth(src)); err != nil {
			t.Fatal(err)
		}
		got, read := probedRecall(p, src, held, 10)
		t.Logf("target %.2f: gap %.3f, %.1f probes, %.1f%% read (held-out %.1f%%), recall %.4f (held-out %.4f)", target, p.Gap, p.Probes, 100*p.Read, 100*read, p.Recall, got)
		if p.Recall < target {
			t.Errorf("target %v: calibration recall %v", target, p.Recall)
		}
		if got < target-0.02 {
			t.Errorf("target %v: held-out recall %.4f", target, got)
		}
		if p.Gap < lastGap {
			t.Errorf("target %v: gap %v below the lower target's %v", target, p.Gap, lastGap)
		}
		lastGap = p.Gap
		if target == 0.99 && (!p.Pays || read > 0.25) {
			t.Errorf("target 0.99 reads %.1f%% of the rows: partitions do not pay on clustered data", 100*read)
		}
		// No query probes more than Cap partitions, nearest first.
		most := 0
		for i := 0; i < len(held)/dim; i++ {
			_, parts := p.Choose(held[i*dim : (i+1)*dim])
			most = max(most, len(parts))
		}
		t.Logf("target %.2f: cap %d of %d partitions, the most a held-out query probed %d", target, p.Cap, p.K(), most)
		if p.Cap < 1 || p.Cap > p.K() || most > p.Cap {
			t.Errorf("target %v: cap %d of %d, a query probed %d", target, p.Cap, p.K(), most)
		}
		if target == 0.99 && p.Cap == p.K() {
			t.Errorf("target 0.99: no cap on clustered data")
		}
	}
}

// A cap on the partitions probed bounds the queries among many near
// partitions, whose probes Gap alone leaves unbounded, while the recall
// stays what Calibrate measured: the capped calibration finds the target
// over the same queries, and reads no more than capSlack times the rows.
func TestCalibrateCapsTheProbes(t *testing.T) {
	ctx := context.Background()
	const dim = 32
	src := memSource{mixture(6, 20_000, dim, 60, 0.6), dim}
	p, err := Build(ctx, src, PartitionsFor(src.Rows()), 6)
	if err != nil {
		t.Fatal(err)
	}
	asked, found, err := p.calibrationQueries(ctx, src, 10, 6, exactTruth(src))
	if err != nil {
		t.Fatal(err)
	}
	need := int(math.Ceil(0.995*float64(len(found)))) - 1
	free, _ := gapFor(found, p.K(), need)
	freeProbes, freeRows := p.probed(asked, free, p.K())
	most := 0
	for _, q := range asked {
		n := 0
		for n < len(q.order) && q.scores[q.order[n]] >= q.best-free {
			n++
		}
		most = max(most, n)
	}
	if err := p.Calibrate(ctx, src, 10, 0.99, 6, exactTruth(src)); err != nil {
		t.Fatal(err)
	}
	_, rows := p.probed(asked, p.Gap, p.Cap)
	t.Logf("uncapped: gap %.3f, %.1f probes, the most %d, %.0f rows; capped: gap %.3f, cap %d, %.1f probes, %.0f rows, recall %.4f",
		free, freeProbes, most, freeRows, p.Gap, p.Cap, p.Probes, rows, p.Recall)
	if p.Cap >= most {
		t.Errorf("cap %d bounds nothing: the most probed without it was %d", p.Cap, most)
	}
	if p.Recall < 0.99 || rows > capSlack*freeRows+1e-9 {
		t.Errorf("capped: recall %.4f, %.0f rows a query against %.0f uncapped", p.Recall, rows, freeRows)
	}
}

func TestCalibrateOnDataWithoutClusters(t *testing.T) {
	ctx := context.Background()
	const dim = 32
	// Uniform directions: no neighbourhoods, so a high recall needs most
	// partitions, and partitions do not pay.
	src := memSource{mixture(4, 8_000, dim, 1, 1e6), dim}
	p, err := Build(ctx, src, PartitionsFor(src.Rows()), 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Calibrate(ctx, src, 10, 0.99, 4, exactTruth(src)); err != nil {
		t.Fatal(err)
	}
	if p.Pays {
		t.Errorf("partitions pay on uniform data: %.1f%% read for recall %.4f", 100*p.Read, p.Recall)
	}
}

func TestChooseAndRowsOf(t *testing.T) {
	ctx := context.Background()
	const dim = 16
	src := memSource{mixture(5, 4_000, dim, 20, 0.5), dim}
	p, err := Build(ctx, src, 50, 5)
	if err != nil {
		t.Fatal(err)
	}
	if best, parts := p.Choose(make([]float32, dim)); best != 0 || parts != nil {
		t.Errorf("a query of length 0 chose %v (best %v)", parts, best)
	}
	q := src.data[:dim]
	best, parts := p.Choose(q) // Gap 2 before Calibrate: every partition
	if len(parts) != p.K() || best < 0.5 {
		t.Fatalf("chose %d of %d partitions, best cosine %v", len(parts), p.K(), best)
	}
	rows := p.RowsOf(parts, nil)
	if len(rows) != src.Rows() || !slices.IsSorted(rows) {
		t.Fatalf("rows of every partition: %d, sorted %v", len(rows), slices.IsSorted(rows))
	}
	one := p.RowsOf(parts[:1], rows) // reuses the slice; the bitmap is clear again
	if !slices.Equal(one, p.Lists()[parts[0]]) {
		t.Error("the rows of one partition differ from its list")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	ctx := context.Background()
	const dim = 16
	src := memSource{mixture(6, 3_000, dim, 20, 0.5), dim}
	p, err := Build(ctx, src, 50, 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Calibrate(ctx, src, 10, 0.99, 6, exactTruth(src)); err != nil {
		t.Fatal(err)
	}
	keys := make([]RowKey, src.Rows())
	for i := range keys {
		keys[i] = RowKey{Serial: uint32(10 + 2*i), IDHash: uint32(i * 7)}
	}
	checks := []RowCheck{{0, 17}, {1500, 4}}
	var buf bytes.Buffer
	if err := p.Encode(&buf, keys, 10+2*uint32(len(keys)), checks); err != nil {
		t.Fatal(err)
	}
	q, gotKeys, below, gotChecks, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotKeys, keys) || below != 10+2*uint32(len(keys)) || !slices.Equal(gotChecks, checks) {
		t.Fatalf("keys or below differ: below %d", below)
	}
	if !slices.EqualFunc(q.Lists(), p.Lists(), slices.Equal) || !slices.Equal(q.C.Data, p.C.Data) || !slices.Equal(q.top.Data, p.top.Data) ||
		!slices.Equal(q.leaves, p.leaves) || q.Gap != p.Gap || q.Floor != p.Floor || q.Probes != p.Probes || q.Recall != p.Recall || q.Pays != p.Pays || q.Rows() != p.Rows() {
		t.Fatal("the decoded partitions differ from those encoded")
	}
	// Every byte changed, and every cut, is refused.
	data := buf.Bytes()
	for i := 0; i < len(data); i += 97 {
		bad := slices.Clone(data)
		bad[i] ^= 0x10
		if _, _, _, _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
		if _, _, _, _, err := Decode(data[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: %v", i, err)
		}
	}
}

func TestRekeyFollowsTheRows(t *testing.T) {
	ctx := context.Background()
	const dim = 16
	src := memSource{mixture(7, 2_000, dim, 10, 0.5), dim}
	p, err := Build(ctx, src, 40, 7)
	if err != nil {
		t.Fatal(err)
	}
	// Every third row gone, the others moved down.
	move := func(r int32) int32 {
		if r%3 == 0 {
			return -1
		}
		return r - r/3 - 1
	}
	q, ok := p.Rekey(move)
	if !ok {
		t.Fatal("rekey refused rows that stay a prefix")
	}
	want := src.Rows() - (src.Rows()+2)/3
	checkLists(t, q, want)
	for c, l := range p.Lists() {
		for _, r := range l {
			if at := move(r); at >= 0 && !slices.Contains(q.Lists()[c], at) {
				t.Fatalf("row %d (now %d) left partition %d", r, at, c)
			}
		}
	}
	// Rows that leave a hole below the last are refused.
	if _, ok := p.Rekey(func(r int32) int32 { return 2 * r }); ok {
		t.Error("rekey into every other position was taken")
	}
}

// FuzzDecode: Decode never panics, and what it takes encodes back to the
// same bytes.
func FuzzDecode(f *testing.F) {
	src := memSource{mixture(8, 400, 8, 5, 0.5), 8}
	p, err := Build(context.Background(), src, 10, 8)
	if err != nil {
		f.Fatal(err)
	}
	keys := make([]RowKey, src.Rows())
	for i := range keys {
		keys[i] = RowKey{Serial: uint32(i), IDHash: uint32(i)}
	}
	var buf bytes.Buffer
	if err := p.Encode(&buf, keys, uint32(len(keys)), []RowCheck{{3, 9}}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, keys, below, checks, err := Decode(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := q.Encode(&out, keys, below, checks); err != nil {
			t.Fatal(err)
		}
		if string(data[:len(fileMagicV2)]) == fileMagicV2 {
			if q.Target != 0 || q.Cap != q.K() {
				t.Fatalf("a version 2 file read with target %v, cap %d of %d", q.Target, q.Cap, q.K())
			}
			return // written again as version 3
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatal("decoded partitions encode to other bytes")
		}
	})
}

// A file of version 2, written before Cap, is read with every partition
// in reach and no target, so that the index calibrates it again; its
// partitions are the same.
func TestDecodeVersion2(t *testing.T) {
	src := memSource{mixture(8, 400, 8, 5, 0.5), 8}
	p, err := Build(context.Background(), src, 10, 8)
	if err != nil {
		t.Fatal(err)
	}
	p.Target, p.Cap = 0.99, 3
	keys := make([]RowKey, src.Rows())
	for i := range keys {
		keys[i] = RowKey{Serial: uint32(i), IDHash: uint32(i)}
	}
	var buf bytes.Buffer
	if err := p.Encode(&buf, keys, uint32(len(keys)), nil); err != nil {
		t.Fatal(err)
	}
	// Version 2 is version 3 without Cap (the ninth value of the header).
	b := buf.Bytes()
	at := len(fileMagic) + 8*4
	old := slices.Concat([]byte(fileMagicV2), b[len(fileMagic):at], b[at+4:len(b)-4])
	old = binary.LittleEndian.AppendUint32(old, crc32.Checksum(old, castagnoli))
	q, _, _, _, err := Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	if q.Target != 0 || q.Cap != q.K() || !slices.EqualFunc(q.Lists(), p.Lists(), slices.Equal) || q.Gap != p.Gap {
		t.Fatalf("version 2: target %v, cap %d of %d, same lists %v", q.Target, q.Cap, q.K(), slices.EqualFunc(q.Lists(), p.Lists(), slices.Equal))
	}
}
