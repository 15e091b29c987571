package core

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// A yielding writer passes every byte on; while queries run it pauses
// after each write for as long as the write took since its last pause (at
// most maxYield), and not at all when none runs.
func TestYieldingWriterPausesWhileQueriesRun(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	var slept []time.Duration
	busy := false
	y := &yieldingWriter{w: &out, busy: func() bool { return busy },
		now:   func() time.Time { return clock },
		sleep: func(d time.Duration) { slept = append(slept, d); clock = clock.Add(d) },
		since: clock}
	write := func(s string, took time.Duration) {
		clock = clock.Add(took)
		if _, err := y.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write("a", 3*time.Millisecond)
	busy = true
	write("b", 2*time.Millisecond)
	write("c", time.Second)
	busy = false
	write("d", 5*time.Millisecond)
	if out.String() != "abcd" {
		t.Fatalf("wrote %q", out.String())
	}
	if want := []time.Duration{2 * time.Millisecond, maxYield}; !slices.Equal(slept, want) {
		t.Fatalf("paused %v, want %v", slept, want)
	}
}

// The index counts the queries it is answering (a commit of Vectra's
// layout yields to them): one while a query or a batch reads its results'
// side-cars, none once they have returned.
func TestQueriesAreCounted(t *testing.T) {
	ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}})
	mustInsert(t, ix, "a", []float32{1, 0}, Metadata{"k": "x", "other": "side-car"})
	var during []int32
	st.mu.Lock()
	st.onRead = func(string) { during = append(during, ix.queries.Load()) }
	st.mu.Unlock()
	if _, err := ix.QueryItems(t.Context(), []float32{1, 0}, "", 1, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItemsBatch(t.Context(), []ItemQuery{{Vector: []float32{1, 0}, TopK: 1}, {Vector: []float32{0, 1}, TopK: 1}}); err != nil {
		t.Fatal(err)
	}
	if len(during) < 2 || slices.Contains(during, 0) {
		t.Fatalf("queries counted while side-cars were read: %v", during)
	}
	if n := ix.queries.Load(); n != 0 {
		t.Fatalf("%d queries counted after they returned", n)
	}
}
