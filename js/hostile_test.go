//go:build !(js && wasm)

package main

import "testing"

// TestHostileCallsLeaveTheRuntimeAlive runs testdata/hostile.js in
// Chromium: over a hundred wrong-type and hostile calls (Proxies whose
// traps throw, getters that throw, embeddings answering nonsense); after
// each, the same runtime still answers a query.
func TestHostileCallsLeaveTheRuntimeAlive(t *testing.T) {
	s := newSite(t, nil)
	ctx := newBrowser(t)
	var r struct {
		Calls      int
		Outcomes   map[string]string
		Dead       []string
		AliveAtEnd bool
	}
	s.runPage(t, ctx, map[string]string{"test": "hostile", "lib": "folio"}, &r)
	if r.Calls < 72 || len(r.Outcomes) != r.Calls {
		t.Fatalf("%d calls made, %d settled; want at least 72, all settled", r.Calls, len(r.Outcomes))
	}
	if len(r.Dead) > 0 || !r.AliveAtEnd {
		t.Errorf("the runtime stopped answering after %v (alive at the end: %v)", r.Dead, r.AliveAtEnd)
	}
	for _, name := range []string{"insertItem(proxy)", "embeddings output string", "insertItem(getter)", "embeddings output proxy", "insertItem(nanVector)", "insertItem(vectorOfStrings)"} {
		if r.Outcomes[name] != "rejected" {
			t.Errorf("%s: %s, want rejected", name, r.Outcomes[name])
		}
	}
}
