package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

func main() {
	n := flag.Int("n", 100_000, "items")
	d := flag.Int("d", 384, "dimensions")
	codecName := flag.String("codec", "protobuf", "protobuf or json")
	open := flag.String("open", "", "open this folder (an index built before) and measure, without building")
	keep := flag.String("dir", "", "build the index in this folder and keep it (default: a temporary folder, removed)")
	flag.Parse()
	codec := core.IndexCodec(codecpb.New())
	if *codecName == "json" {
		codec = codecjson.New()
	}
	var err error
	if *open != "" {
		err = measure(*open, codec, *d)
	} else {
		err = build(*n, *d, *codecName, codec, *keep)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func build(n, d int, codecName string, codec core.IndexCodec, dir string) error {
	ctx := context.Background()
	if dir == "" {
		tmp, err := os.MkdirTemp("", "folio-footprint-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp + "/index"
	}
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
	if err != nil {
		return err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{DeleteIfExists: true, MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}}}); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	items := make([]core.IndexItem, n)
	for i := range items {
		v := testkit.UnitVector(r, d)
		items[i] = core.IndexItem{ID: fmt.Sprintf("item-%07d", i), Vector: v,
			Metadata: core.Metadata{"category": fmt.Sprint("c", i%10), "year": 1990 + i%35}}
	}
	start := time.Now()
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		return err
	}
	fmt.Printf("built %d×%d (%s) in %v\n", n, d, codecName, time.Since(start).Round(time.Millisecond))
	if st, err := os.Stat(dir + "/index" + codec.Extension()); err == nil {
		fmt.Printf("index file: %.1f MB\n", float64(st.Size())/1e6)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-open", dir, "-codec", codecName, "-d", fmt.Sprint(d))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

func measure(dir string, codec core.IndexCodec, d int) error {
	ctx := context.Background()
	q := make([]float32, d)
	q[0] = 1
	start, cpu0 := time.Now(), cpuTime()
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
	if err != nil {
		return err
	}
	res, err := ix.QueryItems(ctx, q, "", 10, nil, false)
	if err != nil {
		return err
	}
	took, cpu := time.Since(start), cpuTime()-cpu0
	rss, hwm := procStatus("VmRSS"), procStatus("VmHWM")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("open + first query: %v wall, %v CPU (%d results)\n", took.Round(time.Millisecond), cpu.Round(time.Millisecond), len(res))
	fmt.Printf("resident after open: VmRSS %s, peak VmHWM %s, Go heap in use %.0f MB\n", rss, hwm, float64(ms.HeapInuse)/1e6)
	start = time.Now()
	const queries = 20
	for range queries {
		if _, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil {
			return err
		}
	}
	fmt.Printf("later queries: %v each\n", (time.Since(start) / queries).Round(10*time.Microsecond))
	return nil
}

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func procStatus(key string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}
