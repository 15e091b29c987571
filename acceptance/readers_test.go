//go:build unix

package acceptance_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

// Readers in other processes during commits that replace and delete: a
// reader on the previous state, for up to its FreshnessInterval, must
// never meet a file the commit removed. Writers replace items (each with a
// new side-car) and documents (each version new text files), and delete
// some; readers in two other processes query, load side-cars and render
// passages the whole time, with the default freshness interval. One writer
// is killed with SIGKILL half-way. Every reader call must succeed, and
// every acknowledged write must be in the folder at the end.
//
// FOLIO_MP_SECONDS sets how long the writers run (3 s by default; `make
// readers-test` runs 20 s).

// churnRounds is how long a churn child runs: it gets the deadline as
// Unix milliseconds in arg.
func mpSeconds() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("FOLIO_MP_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 3 * time.Second
}

// runChurnChild runs the roles of this test; arg is "writer:deadlineMillis".
func runChurnChild(ctx context.Context, role string, codec core.IndexCodec, dir, arg string) error {
	w, deadlineMS, _ := strings.Cut(arg, ":")
	n, _ := strconv.Atoi(w)
	ms, _ := strconv.ParseInt(deadlineMS, 10, 64)
	deadline := time.UnixMilli(ms)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(os.Getpid())))
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...); out.Flush() }
	switch role {
	case "churn-items": // replaces and deletes items c<n>-00 … c<n>-24, printing each acknowledged write
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
		if err != nil {
			return err
		}
		say("ready")
		version := map[string]int{}
		for time.Now().Before(deadline) {
			id := fmt.Sprintf("c%d-%02d", n, rng.IntN(25))
			if rng.IntN(8) == 0 {
				if err := ix.DeleteItem(ctx, id); err != nil {
					return err
				}
				say("ack %s 0", id)
				continue
			}
			version[id]++
			md := core.Metadata{"writer": float64(n), "version": float64(version[id]), "note": strings.Repeat("side-car ", 8)}
			if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: id, Vector: mpVector(n*100 + version[id]), Metadata: md}); err != nil {
				return err
			}
			say("ack %s %d", id, version[id])
		}
	case "churn-docs": // re-upserts and deletes documents w<n>/doc-0 … doc-9
		ix, err := mpDocumentIndex(dir, codec)
		if err != nil {
			return err
		}
		say("ready")
		version := map[string]int{}
		for time.Now().Before(deadline) {
			uri := fmt.Sprintf("w%d/doc-%d.md", n, rng.IntN(10))
			if rng.IntN(8) == 0 {
				if err := ix.DeleteDocument(ctx, uri); err != nil {
					return err
				}
				say("ack %s 0", uri)
				continue
			}
			version[uri]++
			text := fmt.Sprintf("version %d. ", version[uri]) + mpDocText(n, version[uri])
			if _, err := ix.UpsertDocument(ctx, uri, text, "", core.Metadata{"writer": float64(n)}, nil); err != nil {
				return err
			}
			say("ack %s %d", uri, version[uri])
		}
	case "read-items", "read-docs": // reads until the deadline, counting failures
		var read func() error
		if role == "read-items" {
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
			if err != nil {
				return err
			}
			read = func() error {
				res, err := ix.QueryItems(ctx, mpVector(rng.IntN(400)), "", 20, nil, false)
				if err != nil {
					return err
				}
				for _, r := range res {
					if w, _ := r.Item.Metadata["writer"].(float64); !strings.HasPrefix(r.Item.ID, fmt.Sprintf("c%d-", int(w))) {
						return fmt.Errorf("item %s has the metadata %v", r.Item.ID, r.Item.Metadata)
					}
				}
				return nil
			}
		} else {
			ix, err := mpDocumentIndex(dir, codec)
			if err != nil {
				return err
			}
			read = func() error {
				docs, err := ix.QueryDocuments(ctx, fmt.Sprintf("topic%d word%d", rng.IntN(7), rng.IntN(11)), &core.DocumentQueryOptions{MaxDocuments: 5, IsBm25: rng.IntN(2) == 0})
				if err != nil {
					return err
				}
				for _, d := range docs {
					if _, err := d.RenderSections(ctx, 200, 2, true); err != nil {
						return err
					}
					if _, err := d.LoadText(ctx); err != nil {
						return err
					}
				}
				return nil
			}
		}
		say("ready")
		reads, failed, first := 0, 0, ""
		for time.Now().Before(deadline) {
			reads++
			if err := read(); err != nil {
				failed++
				if first == "" {
					first = err.Error()
				}
			}
		}
		say("reads %d failed %d first %s", reads, failed, first)
	}
	return nil
}

// churnChild is a running churn child whose output lines are collected.
type churnChild struct {
	*mpProcess
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func startChurn(t *testing.T, role, codec, dir string, n int, deadline time.Time) *churnChild {
	t.Helper()
	p := startMPArg(t, role, codec, dir, fmt.Sprintf("%d:%d", n, deadline.UnixMilli()))
	c := &churnChild{mpProcess: p, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			line, err := p.Stdout.ReadString('\n')
			if line != "" {
				c.mu.Lock()
				c.lines = append(c.lines, strings.TrimSpace(line))
				c.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// finish waits for the child; killed children may exit with a signal.
func (c *churnChild) finish(t *testing.T, killed bool) []string {
	t.Helper()
	<-c.done
	if err := c.Wait(); err != nil && !killed {
		t.Error(err)
	}
	return c.lines
}

// lastAcks maps each key a writer acknowledged to its last version.
func lastAcks(lines []string) map[string]int {
	acks := map[string]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "ack" {
			acks[f[1]], _ = strconv.Atoi(f[2])
		}
	}
	return acks
}

// checkReaders fails the test unless every reader call succeeded.
func checkReaders(t *testing.T, readers []*churnChild) {
	t.Helper()
	for _, r := range readers {
		lines := r.finish(t, false)
		last := ""
		if len(lines) > 0 {
			last = lines[len(lines)-1]
		}
		var reads, failed int
		if _, err := fmt.Sscanf(last, "reads %d failed %d", &reads, &failed); err != nil {
			t.Fatalf("reader said %q", last)
		}
		t.Logf("reader: %s", last)
		if failed != 0 || reads == 0 {
			t.Errorf("reader: %s", last)
		}
	}
}

func TestReadersDuringOtherProcessesCommits(t *testing.T) {
	run := mpSeconds()
	for _, codec := range []string{"json", "segmented"} {
		t.Run("items/"+codec, func(t *testing.T) { churnItems(t, codec, run) })
	}
	t.Run("documents", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "docs")
		ix, err := mpDocumentIndex(dir, killCodec("json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(run)
		var writers, readers []*churnChild
		for w := range 2 {
			writers = append(writers, startChurn(t, "churn-docs", "json", dir, w, deadline))
		}
		for r := range 2 {
			readers = append(readers, startChurn(t, "read-docs", "json", dir, 10+r, deadline))
		}
		acks := map[string]int{}
		for _, w := range writers {
			for k, v := range lastAcks(w.finish(t, false)) {
				acks[k] = v
			}
		}
		checkReaders(t, readers)
		fresh, err := mpDocumentIndex(dir, killCodec("json"))
		if err != nil {
			t.Fatal(err)
		}
		for uri, v := range acks {
			id, ok, err := fresh.GetDocumentID(t.Context(), uri)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case v == 0 && ok:
				t.Errorf("%s: deleted, but catalogued", uri)
			case v > 0 && !ok:
				t.Errorf("%s: version %d acknowledged, not catalogued", uri, v)
			case v > 0:
				text, err := os.ReadFile(filepath.Join(dir, id+".txt"))
				if err != nil || !strings.HasPrefix(string(text), fmt.Sprintf("version %d. ", v)) {
					t.Errorf("%s: text %.20q, %v; want version %d", uri, text, err, v)
				}
			}
		}
		checkDocumentsStrictly(t, fresh, killCodec("json"), "after the churn")
		reportLeftovers(t, dir)
	})
}

// reportLeftovers logs the files a run leaves beyond what the index names:
// the dropped files still kept for readers, which Vacuum or a later commit
// removes once their time is up.
func reportLeftovers(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	raw, _ := os.ReadFile(filepath.Join(dir, ".folio-dropped.json"))
	t.Logf("%d files in the folder; dropped list %d bytes (%d entries)", len(entries), len(raw), strings.Count(string(raw), `"name"`))
}

// churnItems runs four writer processes (one killed half-way) and two
// readers on one item index of codec ("segmented": protobuf on the
// segmented layout) for run, then checks every acknowledged write.
func churnItems(t *testing.T, codec string, run time.Duration) {
	dir := createMPIndex(t, codec, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"writer"}}})
	deadline := time.Now().Add(run)
	var writers, readers []*churnChild
	for w := range 4 {
		writers = append(writers, startChurn(t, "churn-items", codec, dir, w, deadline))
	}
	for r := range 2 {
		readers = append(readers, startChurn(t, "read-items", codec, dir, 10+r, deadline))
	}
	time.Sleep(run / 2)
	writers[3].Cmd.Process.Signal(syscall.SIGKILL)
	acks := map[string]int{}
	killedAcks := map[string]bool{}
	for i, w := range writers {
		for k, v := range lastAcks(w.finish(t, i == 3)) {
			acks[k] = v
			killedAcks[k] = i == 3
		}
	}
	checkReaders(t, readers)
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: killCodec(codec)})
	if err != nil {
		t.Fatal(err)
	}
	inFlight := false
	for id, v := range acks {
		it, ok, err := ix.GetItem(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if ok {
			res, err := ix.QueryItems(t.Context(), it.Vector, "", 400, core.Filter{"writer": it.Metadata["writer"]}, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.Item.ID == id {
					got = int(r.Item.Metadata["version"].(float64))
				}
			}
		}
		if got == v {
			continue
		}
		// The killed writer's write in flight may have landed without
		// its acknowledgement: one of its keys may be ahead.
		if killedAcks[id] && !inFlight {
			inFlight = true
			t.Logf("%s: version %d in the folder, %d acknowledged: the killed writer's last write", id, got, v)
			continue
		}
		t.Errorf("%s: version %d in the folder, %d acknowledged", id, got, v)
	}
	t.Logf("%d keys acknowledged", len(acks))
	reportLeftovers(t, dir)
}
