package main

import "testing"

// A small run with no added latency: the index over HTTP answers every
// query as the local folder does, and a later query costs a few requests.
func TestWebAnswersEqualLocal(t *testing.T) {
	c := config{d: 32, centres: 50, queries: 8, seed: 2, dir: t.TempDir()}
	r, err := c.measure(5000)
	if err != nil {
		t.Fatal(err)
	}
	if r.asked != c.queries || r.equal != r.asked {
		t.Fatalf("%d of %d answers over HTTP equal the local index's", r.equal, r.asked)
	}
	for i, later := range r.later {
		if later.requests == 0 || later.requests > 8 {
			t.Errorf("later query %d: %d requests, want a few (its re-rank in multi-range requests)", i+1, later.requests)
		}
	}
	if r.open.requests == 0 || r.open.bytes == 0 {
		t.Errorf("the open over HTTP: %+v", r.open)
	}
}
