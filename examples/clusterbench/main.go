// Command clusterbench measures queries on an index of vectors that behave
// like embeddings (package clustered: a mixture of Gaussian clusters), with
// recall against the exact answers: the table of docs/benchmarks.md
// ("Scale"). It builds the index once on the segmented layout, straight
// from the generator, then the exact top 10 of held-out queries, caches
// both in -dir, and measures each way of querying in a fresh process:
//
//	go run ./clusterbench -n 1000000 -dir /tmp/folio-clustered
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit/clustered"
	"github.com/foliovec/folio/core"
)

const topK = 10

type config struct {
	n, d, centres, queries int
	rerank                 int     // IndexOptions.RerankFactor of the quantized phases
	recall                 float64 // IndexOptions.TargetRecall of the partitioned phase
	narrow                 int     // IndexOptions.NarrowFactor of the int4+int8 phase
	ranges                 bool    // read the segments in parts (FileRangeReader), not mapped
	phases                 string  // the phases measured, by name, comma-separated
	seed                   uint64
	dir                    string
}

func main() {
	var c config
	flag.IntVar(&c.n, "n", 1_000_000, "items")
	flag.IntVar(&c.d, "d", 384, "dimensions")
	flag.IntVar(&c.centres, "centres", clustered.DefaultCentres, "clusters")
	flag.IntVar(&c.queries, "queries", 1000, "held-out queries")
	flag.StringVar(&c.phases, "phases", "exact,int8,int4,int4+int8", "the ways of querying measured: exact, int8, int4, int4+int8, partitioned (int4 codes in partitions), updates (writes to a copy of the partitioned index), faiss (FAISS's IVF-flat on the same vectors, through python3-faiss)")
	flag.IntVar(&c.rerank, "rerank", 0, "candidates re-ranked per result by the quantized phases (0: each codes' default)")
	flag.Float64Var(&c.recall, "recall", 0, "the partitioned phase's target recall (0: the default)")
	flag.IntVar(&c.narrow, "narrow", 0, "candidates per result the int4+int8 phase's 4-bit pass hands the int8 codes (0: the default)")
	flag.BoolVar(&c.ranges, "ranges", false, "read the segments in parts (pread through core.FileRangeReader) as a storage that does not map files does")
	seed := flag.Uint64("seed", 1, "the data set's seed")
	flag.StringVar(&c.dir, "dir", filepath.Join(os.TempDir(), "folio-clustered"), "folder for the index and the exact answers (kept for the next run)")
	phase := flag.String("phase", "", "internal: the measurement this process runs")
	flag.Parse()
	c.seed = *seed
	var err error
	if *phase == "" {
		err = run(c)
	} else {
		err = measure(c, *phase)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func (c config) index() string {
	return filepath.Join(c.dir, fmt.Sprintf("ix-%d-%d-%d-%d", c.n, c.d, c.centres, c.seed))
}
func (c config) truth() string { return c.index() + fmt.Sprintf(".top%d-%d.json", topK, c.queries) }

// phases are the ways of querying measured, each the codes its scan
// reads first ("": the exact scan).
var phases = []struct {
	name        string
	codes       core.ScanCodes
	partitioned bool // IndexOptions.Partitions
}{{"exact", "", false}, {"int8", core.CodesInt8, false}, {"int4", core.CodesInt4, false}, {"int4+int8", core.CodesInt4Int8, false},
	{"partitioned", core.CodesInt4, true}}

func (c config) open(codes core.ScanCodes) (*core.LocalIndex, error) {
	return c.openWith(codes, false)
}

func (c config) openWith(codes core.ScanCodes, partitioned bool) (*core.LocalIndex, error) {
	fs, err := storagefs.New(nil)
	if err != nil {
		return nil, err
	}
	var st core.FileStorage = fs
	if c.ranges {
		st = rangesOnly{FileStorage: fs, fs: fs}
	}
	return core.NewLocalIndex(c.index(), core.IndexOptions{Storage: st, Codec: codecpb.New(), ScanCodes: codes, RerankFactor: c.rerank, NarrowFactor: c.narrow,
		Partitions: partitioned, TargetRecall: c.recall})
}

// rangesOnly is the file-system storage without its mapping: it reads
// parts of files, as object storage does.
type rangesOnly struct {
	core.FileStorage
	fs *storagefs.LocalFileStorage
}

func (r rangesOnly) OpenFileRange(ctx context.Context, p string) (core.RangeFile, error) {
	return r.fs.OpenFileRange(ctx, p)
}

func run(c config) error {
	if _, err := os.Stat(filepath.Join(c.index(), "built")); err != nil {
		if err := build(c); err != nil {
			return err
		}
	}
	if _, err := os.Stat(c.truth()); err != nil {
		if err := exactAnswers(c); err != nil {
			return err
		}
	}
	// The index the exact answers opened is garbage now: collected, its
	// mapping is closed and its memory returned before the phases run.
	debug.FreeOSMemory()
	bw := bandwidth(c.n * c.d * 4)
	fmt.Printf("%d×%d clustered (%d centres, seed %d), %d queries, top %d; memory read %.1f GB/s (2 workers)\n", c.n, c.d, c.centres, c.seed, c.queries, topK, bw/1e9)
	fmt.Printf("memory-read floor for a query: float32 rows %.2f ms, int8 codes %.2f ms, 4-bit codes %.2f ms\n", float64(c.n*c.d*4)/bw*1e3, float64(c.n*c.d)/bw*1e3, float64(c.n*c.d/2)/bw*1e3)
	for _, phase := range strings.Split(c.phases, ",") {
		cmd := exec.Command(os.Args[0], "-phase", phase, "-n", strconv.Itoa(c.n), "-d", strconv.Itoa(c.d),
			"-centres", strconv.Itoa(c.centres), "-queries", strconv.Itoa(c.queries), "-seed", strconv.FormatUint(c.seed, 10), "-dir", c.dir,
			"-rerank", strconv.Itoa(c.rerank), "-recall", strconv.FormatFloat(c.recall, 'g', -1, 64), "-narrow", strconv.Itoa(c.narrow), "-ranges="+strconv.FormatBool(c.ranges))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("phase %s: %w", phase, err)
		}
	}
	return nil
}

// build writes the set into a new segmented index (core.BulkLoad).
func build(c config) error {
	ctx := context.Background()
	start := time.Now()
	if err := os.RemoveAll(c.index()); err != nil {
		return err
	}
	// Written by an index that keeps 4-bit codes, the segments carry
	// them: the int4 phase maps the index and reads its codes, not its
	// vectors.
	ix, err := c.open(core.CodesInt4)
	if err != nil {
		return err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		return err
	}
	// Straight from the generator into one segment: the vectors are made
	// again each time BulkLoad reads an item, never held.
	set := clustered.New(c.d, c.centres, 0, c.seed)
	src := core.IndexSource{Len: c.n, Item: func(i int) core.IndexItem {
		v := make([]float32, c.d)
		set.Vector(i, v)
		return core.IndexItem{ID: "c" + strconv.Itoa(i), Vector: v}
	}}
	if _, err := ix.BulkLoad(ctx, src); err != nil {
		return err
	}
	fmt.Printf("built %d×%d in %v (resident %s)\n", c.n, c.d, time.Since(start).Round(time.Millisecond), mb(status("VmHWM")))
	return os.WriteFile(filepath.Join(c.index(), "built"), nil, 0o644)
}

// exactAnswers computes the exact top 10 of every query, all of them in
// one pass over the vectors (one read of a large index from disk), and
// caches them.
func exactAnswers(c config) error {
	ctx := context.Background()
	start := time.Now()
	ix, err := c.open("")
	if err != nil {
		return err
	}
	set := clustered.New(c.d, c.centres, 0, c.seed)
	truth := make([][]string, c.queries)
	for lo := 0; lo < c.queries; lo += exactPass {
		hi := min(lo+exactPass, c.queries)
		qs := make([]core.ItemQuery, hi-lo)
		for j := range qs {
			qs[j] = core.ItemQuery{Vector: make([]float32, c.d), TopK: topK}
			set.Query(lo+j, qs[j].Vector)
		}
		res, err := ix.QueryItemsBatch(ctx, qs)
		if err != nil {
			return err
		}
		for j, rs := range res {
			for _, r := range rs {
				truth[lo+j] = append(truth[lo+j], r.Item.ID)
			}
		}
	}
	raw, err := json.Marshal(truth)
	if err != nil {
		return err
	}
	fmt.Printf("exact answers of %d queries in %v\n", c.queries, time.Since(start).Round(time.Millisecond))
	return os.WriteFile(c.truth(), raw, 0o644)
}

// exactPass is the most queries the exact answers take in one pass.
const exactPass = 1000

// result is what measure finds of one way of querying.
type result struct {
	open     time.Duration // open and a first query
	openRSS  int64         // resident memory (VmHWM) after them
	p50, p99 time.Duration // single queries
	recall   float64       // mean recall@10 against the exact answers
	batch    time.Duration // median of a pass answering batchSize queries
	bRecall  float64       // recall@10 of the batched answers
	// diskBytes is what the single queries read from the disk, a query on
	// average (the bytes the kernel fetched from storage for the process:
	// /proc/self/io's read_bytes), and reads their read calls a query.
	diskBytes, reads float64
}

// batchSize is the queries of one QueryItemsBatch call measured.
const batchSize = 64

// measure opens the index for one way of querying, asks every query alone
// and prints what it finds, with the process's resident memory.
func measure(c config, phase string) error {
	switch phase {
	case "updates":
		return updates(c)
	case "faiss":
		return faissIVF(c)
	}
	r, err := queryAll(c, phase)
	if err != nil {
		return err
	}
	fmt.Printf("%-9s open+query %v (resident %s); single query p50 %.2f ms, p99 %.2f ms; recall@%d %.4f; from the disk %.0f KB in %.0f reads a query; batch of %d %.1f ms (%.2f ms a query, recall %.4f); resident %s (own %s)\n",
		phase, r.open.Round(time.Millisecond), mb(r.openRSS), ms(r.p50), ms(r.p99), topK, r.recall, r.diskBytes/1e3, r.reads,
		batchSize, ms(r.batch), ms(r.batch)/batchSize, r.bRecall, mb(status("VmHWM")), mb(status("RssAnon")))
	return nil
}

// queryAll opens the index for one way of querying (a name of phases)
// and asks every query alone.
func queryAll(c config, phase string) (result, error) {
	ctx := context.Background()
	raw, err := os.ReadFile(c.truth())
	if err != nil {
		return result{}, err
	}
	var truth [][]string
	if err := json.Unmarshal(raw, &truth); err != nil {
		return result{}, err
	}
	if p := os.Getenv("CLUSTERBENCH_OPENPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return result{}, err
		}
		pprof.StartCPUProfile(f)
	}
	start := time.Now()
	var codes core.ScanCodes = "none"
	partitioned := false
	for _, p := range phases {
		if p.name == phase {
			codes, partitioned = p.codes, p.partitioned
		}
	}
	ix, err := c.openWith(codes, partitioned)
	if err != nil {
		return result{}, err
	}
	set := clustered.New(c.d, c.centres, 0, c.seed)
	q := make([]float32, c.d)
	set.Query(0, q)
	if _, err := ix.QueryItems(ctx, q, "", topK, nil, false); err != nil {
		return result{}, err
	}
	openTime := time.Since(start)
	openRSS := status("VmHWM")
	if p := os.Getenv("CLUSTERBENCH_HEAPPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return result{}, err
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return result{}, err
		}
		f.Close()
	}
	if os.Getenv("CLUSTERBENCH_RSS") != "" {
		fmt.Printf("%-9s after the open: resident %s (own %s, files %s), peak %s\n", phase, mb(status("VmRSS")), mb(status("RssAnon")), mb(status("RssFile")), mb(openRSS))
	}
	if os.Getenv("CLUSTERBENCH_OPENPROFILE") != "" {
		pprof.StopCPUProfile()
	}
	if partitioned {
		st, err := ix.GetIndexStats(ctx)
		if err != nil {
			return result{}, err
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("%-9s %d partitions, %.1f probed (%.2f%% of the rows), expected recall %.4f; heap in use %s, codes %s\n", phase, st.Partitions, st.Probes, 100*st.RowsRead, st.ExpectedRecall, mb(int64(ms.HeapInuse)), mb(st.CodeBytes))
	}
	if p := os.Getenv("CLUSTERBENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return result{}, err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	lat := make([]time.Duration, c.queries)
	hits, wanted := 0, 0
	ioBefore := procIO()
	for j := range c.queries {
		set.Query(j, q)
		t := time.Now()
		res, err := ix.QueryItems(ctx, q, "", topK, nil, false)
		lat[j] = time.Since(t)
		if err != nil {
			return result{}, err
		}
		for _, r := range res {
			if slices.Contains(truth[j], r.Item.ID) {
				hits++
			}
		}
		wanted += len(truth[j])
	}
	if partitioned {
		m := ix.Metrics()
		fmt.Printf("%-9s %d of %d code scans probed partitions\n", phase, m.ProbedScans, m.CodeScans)
	}
	ioAfter := procIO()
	slices.Sort(lat)
	r := result{open: openTime, openRSS: openRSS, p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], recall: float64(hits) / float64(wanted),
		diskBytes: float64(ioAfter.readBytes-ioBefore.readBytes) / float64(c.queries), reads: float64(ioAfter.syscr-ioBefore.syscr) / float64(c.queries)}
	var passes []time.Duration
	hits, wanted = 0, 0
	for lo := 0; lo+batchSize <= c.queries; lo += batchSize {
		qs := make([]core.ItemQuery, batchSize)
		for j := range qs {
			qs[j] = core.ItemQuery{Vector: make([]float32, c.d), TopK: topK}
			set.Query(lo+j, qs[j].Vector)
		}
		t := time.Now()
		res, err := ix.QueryItemsBatch(ctx, qs)
		passes = append(passes, time.Since(t))
		if err != nil {
			return result{}, err
		}
		for j, rs := range res {
			for _, x := range rs {
				if slices.Contains(truth[lo+j], x.Item.ID) {
					hits++
				}
			}
			wanted += len(truth[lo+j])
		}
	}
	if len(passes) > 0 {
		slices.Sort(passes)
		r.batch, r.bRecall = passes[len(passes)/2], float64(hits)/float64(wanted)
	}
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// parallel runs fn(i) for i in 0..n-1 on every core.
func parallel(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// bandwidth is this machine's memory read rate in bytes a second: the
// best of three passes of two workers summing size bytes.
func bandwidth(size int) float64 {
	buf := make([]uint64, size/8)
	for i := range buf {
		buf[i] = uint64(i)
	}
	best := 0.0
	var sink uint64
	for range 3 {
		start := time.Now()
		var mu sync.Mutex
		parallel(2, func(w int) {
			part := buf[w*len(buf)/2 : (w+1)*len(buf)/2]
			var s uint64
			for i := 0; i+4 <= len(part); i += 4 {
				s += part[i] ^ part[i+1] ^ part[i+2] ^ part[i+3]
			}
			mu.Lock()
			sink += s
			mu.Unlock()
		})
		best = max(best, float64(size)/time.Since(start).Seconds())
	}
	runtime.KeepAlive(sink)
	return best
}

// ioCounts are the process's I/O counters (/proc/self/io; zero where the
// system has none).
type ioCounts struct{ readBytes, syscr int64 }

// procIO reads the process's I/O counters: read_bytes, the bytes the
// kernel fetched from storage for it (page-cache hits not counted), and
// syscr, its read calls.
func procIO() ioCounts {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return ioCounts{}
	}
	var c ioCounts
	for line := range strings.Lines(string(raw)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "read_bytes":
			c.readBytes = n
		case "syscr":
			c.syscr = n
		}
	}
	return c
}

// status is a field of /proc/self/status in bytes (0 where there is none).
func status(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

func mb(b int64) string { return fmt.Sprintf("%d MB", b>>20) }
