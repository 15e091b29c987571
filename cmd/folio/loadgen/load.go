package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/testkit"
)

// loadKinds are the calls load can mix, in the order it reports them.
var loadKinds = []string{"query", "filter", "docs", "insert"}

// loadConfig is one load run.
type loadConfig struct {
	address, index, docIndex string
	concurrency              int
	duration                 time.Duration
	requests                 int
	dims, topK               int
	filter, text             string
	mix                      map[string]int
	token                    string
	seed                     uint64
	create                   int    // items to create the index with first; 0: use it as it is
	format                   string // the created index's format
}

// loadStats is what load measured of one kind of call (or of all).
type loadStats struct {
	Kind     string  `json:"kind"`
	Calls    int     `json:"calls"`
	Errors   int     `json:"errors"`
	PerSec   float64 `json:"perSecond"`
	P50Ms    float64 `json:"p50Ms"`
	P90Ms    float64 `json:"p90Ms"`
	P99Ms    float64 `json:"p99Ms"`
	MaxMs    float64 `json:"maxMs"`
	FirstErr string  `json:"firstError,omitempty"`
}

// parseMix reads --mix values into weights by kind.
func parseMix(values []string) (map[string]int, error) {
	mix := map[string]int{}
	for _, v := range values {
		kind, w, ok := strings.Cut(v, "=")
		weight, err := strconv.Atoi(w)
		if !ok || err != nil || weight < 0 || !slices.Contains(loadKinds, kind) {
			return nil, usageErrorf("--mix %q: want KIND=WEIGHT, KIND one of %s", v, strings.Join(loadKinds, ", "))
		}
		mix[kind] = weight
	}
	total := 0
	for _, w := range mix {
		total += w
	}
	if total == 0 {
		return nil, usageErrorf("--mix gives every kind a weight of 0")
	}
	return mix, nil
}

// record is one call of a load run.
type record struct {
	kind string
	dur  time.Duration
	err  error
}

// runLoad runs the load and returns the stats of each kind that ran, then
// of all calls.
func runLoad(ctx context.Context, cfg loadConfig) ([]loadStats, error) {
	if cfg.token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cfg.token)
	}
	clients, closeAll, err := dial(cfg.address, cfg.concurrency)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	var kinds []string
	var weights []int
	for _, k := range loadKinds {
		if w := cfg.mix[k]; w > 0 {
			kinds, weights = append(kinds, k), append(weights, w)
		}
	}
	start := time.Now()
	records := drive(ctx, cfg, clients, kinds, weights)
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	byKind := map[string][]record{}
	var all []record
	for _, rs := range records {
		for _, r := range rs {
			byKind[r.kind] = append(byKind[r.kind], r)
			all = append(all, r)
		}
	}
	var out []loadStats
	for _, k := range kinds {
		out = append(out, summarize(k, byKind[k], elapsed))
	}
	return append(out, summarize("all", all, elapsed)), nil
}

// dial opens n connections to address, one a client, as separate users
// have.
func dial(address string, n int) ([]vectrapb.VectraServiceClient, func(), error) {
	var conns []*grpc.ClientConn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	clients := make([]vectrapb.VectraServiceClient, n)
	for i := range clients {
		conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns = append(conns, conn)
		clients[i] = vectrapb.NewVectraServiceClient(conn)
	}
	return clients, closeAll, nil
}

// drive sends calls from every client until the run's deadline or after
// --requests calls, and returns each client's records. A call in flight at
// the deadline finishes and counts (no call is cut short); a call that ctx
// interrupts is not counted.
func drive(ctx context.Context, cfg loadConfig, clients []vectrapb.VectraServiceClient, kinds []string, weights []int) [][]record {
	var sent sync.Mutex
	remaining := cfg.requests
	deadline := time.Now().Add(cfg.duration)
	take := func() bool {
		if ctx.Err() != nil {
			return false
		}
		if cfg.requests == 0 {
			return time.Now().Before(deadline)
		}
		sent.Lock()
		defer sent.Unlock()
		if remaining == 0 {
			return false
		}
		remaining--
		return true
	}
	records := make([][]record, len(clients))
	var wg sync.WaitGroup
	for w, c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(cfg.seed, uint64(w)))
			for take() {
				kind := pick(rng, kinds, weights)
				t0 := time.Now()
				err := loadCall(ctx, c, cfg, kind, rng)
				d := time.Since(t0)
				if ctx.Err() != nil {
					return
				}
				records[w] = append(records[w], record{kind, d, err})
			}
		})
	}
	wg.Wait()
	return records
}

// summarize is the stats of records of one kind (or of all) over elapsed.
func summarize(kind string, rs []record, elapsed time.Duration) loadStats {
	s := loadStats{Kind: kind, Calls: len(rs), PerSec: float64(len(rs)) / elapsed.Seconds()}
	durs := make([]time.Duration, 0, len(rs))
	for _, r := range rs {
		if r.err != nil {
			if s.Errors++; s.FirstErr == "" {
				s.FirstErr = r.err.Error()
			}
			continue
		}
		durs = append(durs, r.dur)
	}
	slices.Sort(durs)
	ms := func(q float64) float64 {
		if len(durs) == 0 {
			return 0
		}
		i := min(len(durs)-1, int(math.Ceil(q*float64(len(durs))))-1)
		return float64(durs[max(i, 0)]) / 1e6
	}
	s.P50Ms, s.P90Ms, s.P99Ms, s.MaxMs = ms(0.50), ms(0.90), ms(0.99), ms(1)
	return s
}

// pick chooses a kind by weight.
func pick(rng *rand.Rand, kinds []string, weights []int) string {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := rng.IntN(total)
	for i, w := range weights {
		if n < w {
			return kinds[i]
		}
		n -= w
	}
	return kinds[len(kinds)-1]
}

// loadCall makes one call of kind.
func loadCall(ctx context.Context, c vectrapb.VectraServiceClient, cfg loadConfig, kind string, rng *rand.Rand) error {
	var err error
	switch kind {
	case "query", "filter":
		req := &vectrapb.QueryItemsRequest{IndexName: cfg.index, Vector: testkit.UnitVector(rng, cfg.dims), TopK: uint32(cfg.topK)}
		if kind == "filter" {
			req.Filter = &vectrapb.MetadataFilter{FilterJson: cfg.filter}
		}
		_, err = c.QueryItems(ctx, req)
	case "docs":
		_, err = c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: cfg.docIndex, Query: cfg.text, MaxDocuments: uint32(cfg.topK)})
	case "insert":
		_, err = c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: cfg.index, Vector: testkit.UnitVector(rng, cfg.dims),
			Metadata: map[string]*vectrapb.MetadataValue{"group": {Value: &vectrapb.MetadataValue_NumberValue{NumberValue: float64(rng.IntN(4))}}}})
	}
	return err
}

// createLoadIndex creates cfg.index, replacing one of that name, and fills
// it with cfg.create random unit vectors, metadata "group" 0..9.
func createLoadIndex(ctx context.Context, cfg loadConfig) error {
	if cfg.token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cfg.token)
	}
	conn, err := grpc.NewClient(cfg.address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	c := vectrapb.NewVectraServiceClient(conn)
	if _, err := c.DeleteIndex(ctx, &vectrapb.DeleteIndexRequest{IndexName: cfg.index}); err != nil && status.Code(err) != codes.NotFound {
		return fmt.Errorf("delete index %s: %w", cfg.index, err)
	}
	if _, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: cfg.index, Format: cfg.format}); err != nil {
		return fmt.Errorf("create index %s: %w", cfg.index, err)
	}
	rng := rand.New(rand.NewPCG(cfg.seed, 0xc0ffee))
	const chunk = 1000
	for lo := 0; lo < cfg.create; lo += chunk {
		req := &vectrapb.BatchInsertItemsRequest{IndexName: cfg.index}
		for i := lo; i < min(lo+chunk, cfg.create); i++ {
			req.Items = append(req.Items, &vectrapb.InsertItemRequest{IndexName: cfg.index, Id: strconv.Itoa(i), Vector: testkit.UnitVector(rng, cfg.dims),
				Metadata: map[string]*vectrapb.MetadataValue{"group": {Value: &vectrapb.MetadataValue_NumberValue{NumberValue: float64(i % 10)}}}})
		}
		if _, err := c.BatchInsertItems(ctx, req); err != nil {
			return fmt.Errorf("insert items %d..%d into %s: %w", lo, lo+len(req.Items)-1, cfg.index, err)
		}
	}
	return nil
}
