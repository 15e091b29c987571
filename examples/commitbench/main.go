// Command commitbench measures what one commit costs on a large index, on
// both layouts, in one run (make bench-commit):
//
//   - the time dd takes to copy the protobuf index file with fsync, the
//     floor of any commit that rewrites it;
//
//   - Vectra's layout (index.pb): the time of one upsert adding an item and
//     of one replacing an item, and the peak resident memory during each
//     against the memory after open;
//
//   - the segmented layout: the open time (the median of five fresh
//     processes, and in the process that measures the rest) and resident
//     memory, a query's
//     median time before and after the upserts, the p50 and p99 of single
//     upserts (each a commit, fsync included), and the time and peak
//     resident memory of a full compaction;
//
//   - 10,000 (-singles) single-item commits on a fresh segmented index of
//     -d dimensions, with CompactIfDue called after each as a server's
//     background does: their p50, p99 and max, those that merged segments
//     apart, and the segments left.
//
//     go run ./commitbench -n 1000000 -d 384 -dir /tmp/commitbench
//
// Both indexes are built by the library, one BatchInsertItems per 250,000
// items, in -dir (kept, and reused by the next run with the same -n and
// -d). Each measurement runs in a fresh process of this program, so that
// its resident memory is its own; peaks come from /proc/self/status
// (VmHWM, reset through /proc/self/clear_refs before the measured step).
//
// # Concurrency
//
// The steps run one after another; the library parallelises internally.
//
// # Errors
//
// The first error ends the program: it is logged to standard error and the
// exit status is 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

func main() {
	n := flag.Int("n", 1_000_000, "items")
	d := flag.Int("d", 384, "dimensions")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "folio-commitbench"), "folder for the two indexes (kept for the next run)")
	upserts := flag.Int("upserts", 200, "single upserts on the segmented layout")
	singles := flag.Int("singles", 10_000, "single-item commits on a fresh segmented index (0: none)")
	phase := flag.String("phase", "", "internal: the measurement this process runs")
	flag.Parse()
	var err error
	switch *phase {
	case "":
		err = run(*n, *d, *dir, *upserts)
		if err == nil && *singles > 0 {
			err = measureSingles(*dir, *d, *singles)
		}
	case "singles":
		err = measureSingles(*dir, *d, *singles)
	case "file":
		err = measureFile(*dir, *d)
	case "segmented":
		err = measureSegmented(*dir, *d, *upserts)
	case "open":
		err = measureOpen(*dir)
	default:
		err = fmt.Errorf("unknown phase %q", *phase)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func run(n, d int, dir string, upserts int) error {
	stamp := filepath.Join(dir, fmt.Sprintf("built-%d-%d", n, d))
	if _, err := os.Stat(stamp); err != nil {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		for _, layout := range []core.Layout{core.LayoutFile, core.LayoutSegmented} {
			start := time.Now()
			if err := build(filepath.Join(dir, string(layout)), layout, n, d); err != nil {
				return err
			}
			fmt.Printf("built %d×%d, %s layout, in %v\n", n, d, layout, time.Since(start).Round(time.Second))
		}
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			return err
		}
	}
	ddTime, err := ddWithFsync(filepath.Join(dir, "file", "index.pb"))
	if err != nil {
		return err
	}
	fmt.Printf("dd of index.pb with fsync: %v\n", ddTime.Round(time.Millisecond))
	phase := func(name string) ([]byte, error) {
		cmd := exec.Command(os.Args[0], "-phase", name, "-dir", dir, "-d", strconv.Itoa(d), "-upserts", strconv.Itoa(upserts))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("phase %s: %w", name, err)
		}
		return out, nil
	}
	out, err := phase("file")
	if err != nil {
		return err
	}
	os.Stdout.Write(out)
	// The segmented layout's open, in fresh processes: the first after
	// the file layout's phase (which leaves the machine freeing and
	// writing gigabytes) is reported beside the median.
	var opens []time.Duration
	for range 5 {
		out, err := phase("open")
		if err != nil {
			return err
		}
		t, err := time.ParseDuration(strings.TrimSpace(string(out)))
		if err != nil {
			return fmt.Errorf("phase open printed %q", out)
		}
		opens = append(opens, t)
	}
	first := opens[0]
	slices.Sort(opens)
	fmt.Printf("segmented layout: open, 5 fresh processes: median %v, from %v to %v (the first, right after the file layout's phase: %v)\n",
		opens[2].Round(time.Millisecond), opens[0].Round(time.Millisecond), opens[4].Round(time.Millisecond), first.Round(time.Millisecond))
	if out, err = phase("segmented"); err != nil {
		return err
	}
	os.Stdout.Write(out)
	return nil
}

// measureOpen prints how long the segmented index takes to open (read
// and answer its stats) in this fresh process.
func measureOpen(dir string) error {
	ix, err := open(filepath.Join(dir, "segmented"))
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := ix.GetIndexStats(context.Background()); err != nil {
		return err
	}
	fmt.Println(time.Since(start))
	return nil
}

func open(folder string) (*core.LocalIndex, error) {
	st, err := storagefs.New(nil)
	if err != nil {
		return nil, err
	}
	return core.NewLocalIndex(folder, core.IndexOptions{Storage: st, Codec: codecpb.New()})
}

func build(folder string, layout core.Layout, n, d int) error {
	ctx := context.Background()
	ix, err := open(folder)
	if err != nil {
		return err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: layout, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	const batch = 250_000
	for lo := 0; lo < n; lo += batch {
		items := make([]core.IndexItem, min(batch, n-lo))
		for i := range items {
			items[i] = core.IndexItem{ID: fmt.Sprint("item-", lo+i), Vector: vector(r, d), Metadata: core.Metadata{"k": float64((lo + i) % 7)}}
		}
		if _, err := ix.BatchInsertItems(ctx, items); err != nil {
			return err
		}
	}
	return nil
}

func vector(r *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func ddWithFsync(file string) (time.Duration, error) {
	out := file + ".dd"
	defer os.Remove(out)
	start := time.Now()
	cmd := exec.Command("dd", "if="+file, "of="+out, "bs=4M", "conv=fsync")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("dd: %v: %s", err, msg)
	}
	return time.Since(start), nil
}

// status returns a /proc/self/status field in bytes.
func status(field string) int64 {
	raw, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sampleAnon samples the process's own (anonymous) resident memory every
// 5 ms until stop is called, keeping the largest sample in *peak: the
// kernel keeps no high-water mark of it apart from the mapped files' pages.
func sampleAnon() (stop func(), peak *int64) {
	peak = new(int64)
	*peak = status("RssAnon")
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				*peak = max(*peak, status("RssAnon"))
			}
		}
	})
	return func() { close(done); wg.Wait() }, peak
}

// resetPeak makes VmHWM start again from the current resident memory.
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func mb(b int64) string { return fmt.Sprintf("%d MB", b>>20) }

func measureFile(dir string, d int) error {
	ctx := context.Background()
	ix, err := open(filepath.Join(dir, "file"))
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(9, 9))
	start := time.Now()
	if _, err := ix.QueryItems(ctx, vector(r, d), "", 10, nil, false); err != nil {
		return err
	}
	openTime, rss := time.Since(start), status("VmRSS")
	fmt.Printf("file layout (index.pb): open+query %v, resident %s\n", openTime.Round(time.Millisecond), mb(rss))
	for _, what := range []struct{ name, id string }{{"adding an item", "added-item"}, {"replacing an item", "item-17"}} {
		resetPeak()
		start = time.Now()
		if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: what.id, Vector: vector(r, d), Metadata: core.Metadata{"k": 1.0}}); err != nil {
			return err
		}
		took, peak := time.Since(start), status("VmHWM")
		fmt.Printf("file layout (index.pb): one upsert %s %v, peak during it %s (%.2f× open)\n",
			what.name, took.Round(time.Millisecond), mb(peak), float64(peak)/float64(rss))
	}
	// Leave the index as built, for the next run.
	return ix.DeleteItem(ctx, "added-item")
}

func measureSegmented(dir string, d int, upserts int) error {
	ctx := context.Background()
	ix, err := open(filepath.Join(dir, "segmented"))
	if err != nil {
		return err
	}
	start := time.Now()
	stats, err := ix.GetIndexStats(ctx)
	if err != nil {
		return err
	}
	openTime, rss, anon := time.Since(start), status("VmRSS"), status("RssAnon")
	r := rand.New(rand.NewPCG(9, 9))
	queries := func() time.Duration {
		var ts []time.Duration
		for range 21 {
			q := vector(r, d)
			start := time.Now()
			if _, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil {
				log.Fatal(err)
			}
			ts = append(ts, time.Since(start))
		}
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	before := queries()
	var ts []time.Duration
	for i := range upserts {
		// Half replace a stored item, half add one.
		id := fmt.Sprint("item-", r.IntN(stats.Items))
		if i%2 == 1 {
			id = fmt.Sprint("new-", i)
		}
		start := time.Now()
		if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: id, Vector: vector(r, d), Metadata: core.Metadata{"k": 2.0}}); err != nil {
			return err
		}
		ts = append(ts, time.Since(start))
	}
	slices.Sort(ts)
	after := queries()
	mid, _ := ix.GetIndexStats(ctx)
	rssBefore, anonBefore := status("VmRSS"), status("RssAnon")
	resetPeak()
	stopSampling, anonPeak := sampleAnon()
	start = time.Now()
	rep, err := ix.Compact(ctx)
	if err != nil {
		return err
	}
	compactTime, compactPeak := time.Since(start), status("VmHWM")
	stopSampling()
	fmt.Printf("segmented layout: open %v (%d items, %d segments), resident %s (%s of it the process's own, the rest pages of the mapped segment file)\n", openTime.Round(time.Millisecond), stats.Items, stats.Storage.Segments, mb(rss), mb(anon))
	fmt.Printf("segmented layout: %d single upserts (half replacing): p50 %v, p99 %v, max %v; then %d segments, %d tombstones\n",
		upserts, ts[len(ts)/2].Round(time.Microsecond), ts[len(ts)*99/100].Round(time.Microsecond), ts[len(ts)-1].Round(time.Microsecond), mid.Storage.Segments, mid.Storage.Tombstones)
	fmt.Printf("segmented layout: query median before the upserts %v, after %v (%.2f×)\n", before.Round(time.Microsecond), after.Round(time.Microsecond), float64(after)/float64(before))
	fmt.Printf("segmented layout: compaction of %d segments (%d tombstones) %v, peak %s (%.2f× open; resident before it %s); the process's own memory at most %s (%s before it)\n",
		rep.Segments, rep.Tombstones, compactTime.Round(time.Millisecond), mb(compactPeak), float64(compactPeak)/float64(rss), mb(rssBefore), mb(*anonPeak), mb(anonBefore))
	return nil
}

// measureSingles makes n single-item commits on a fresh segmented index of
// d dimensions in dir, calling CompactIfDue after each on another
// goroutine as a server's background does (at most one running), and
// prints the commits' p50, p99 and max, those that merged segments apart.
func measureSingles(dir string, d, n int) error {
	ctx := context.Background()
	folder := filepath.Join(dir, "singles")
	if err := os.RemoveAll(folder); err != nil {
		return err
	}
	defer os.RemoveAll(folder)
	ix, err := open(folder)
	if err != nil {
		return err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(3, 4))
	var all, merging []time.Duration
	var background sync.WaitGroup
	var busy sync.Mutex
	var merges, merged int
	segments := 0
	for i := range n {
		item := core.IndexItem{ID: fmt.Sprint("s-", i), Vector: vector(r, d)}
		start := time.Now()
		if _, err := ix.UpsertItem(ctx, item); err != nil {
			return err
		}
		took := time.Since(start)
		all = append(all, took)
		st, err := ix.GetIndexStats(ctx)
		if err != nil {
			return err
		}
		if st.Storage.Segments < segments+1 {
			merging = append(merging, took)
		}
		segments = st.Storage.Segments
		if busy.TryLock() {
			background.Go(func() {
				defer busy.Unlock()
				rep, err := ix.CompactIfDue(ctx)
				if err != nil {
					log.Printf("CompactIfDue: %v", err)
				} else if rep.Segments > 0 {
					merges++
					merged += rep.Segments
				}
			})
		}
	}
	background.Wait()
	st, err := ix.GetIndexStats(ctx)
	if err != nil {
		return err
	}
	q := func(ds []time.Duration, p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(p*float64(len(s))))].Round(10 * time.Microsecond)
	}
	fmt.Printf("%d single-item commits, %d dims, fresh segmented index: p50 %v, p99 %v, max %v; the %d that merged segments in the commit: p50 %v, max %v; %d background merges or compactions of %d segments; %d segments left\n",
		n, d, q(all, 0.5), q(all, 0.99), q(all, 1), len(merging), q(merging, 0.5), q(merging, 1), merges, merged, st.Storage.Segments)
	return nil
}
