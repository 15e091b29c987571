package tokenizertiktoken_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// goldenEntry is one line of testdata/o200k_golden.json, written by
// testdata/generate-golden.js from gpt-tokenizer 3.4.0, Vectra's tokenizer.
type goldenEntry struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func loadGolden(t testing.TB) []goldenEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "o200k_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []goldenEntry
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden) == 0 {
		t.Fatal("no golden entries")
	}
	return golden
}

// shared is one tokenizer for the tests that do not test loading: each
// tokenizer parses the ranks (a few seconds under -race).
var shared = sync.OnceValue(tokenizertiktoken.New)

func TestConformance(t *testing.T) {
	tokenizertest.Run(t, func(testing.TB) core.Tokenizer { return shared() },
		tokenizertest.Capabilities{Lossless: true})
}

// The ids gpt-tokenizer 3.4.0 (Vectra 0.15's o200k_base) gives, for texts in
// many scripts, whitespace shapes, code and special-token look-alikes.
func TestEncodeMatchesVectrasTokenizer(t *testing.T) {
	tok := shared()
	for _, g := range loadGolden(t) {
		got := tok.Encode(g.Text)
		if !slices.Equal(got, g.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", g.Text, got, g.IDs)
		}
		if back := tok.Decode(g.IDs); back != g.Text {
			t.Errorf("Decode(%v) = %q, want %q", g.IDs, back, g.Text)
		}
	}
}

func TestSpecialTokenTextIsOrdinaryText(t *testing.T) {
	tok := shared()
	for _, text := range []string{"<|endoftext|>", "<|endofprompt|>", "x<|endoftext|>y"} {
		ids := tok.Encode(text)
		if slices.Contains(ids, 199999) || slices.Contains(ids, 200018) {
			t.Errorf("Encode(%q) = %v holds a special token id", text, ids)
		}
		if len(ids) < 2 {
			t.Errorf("Encode(%q) = %v, want the text's ordinary tokens", text, ids)
		}
		if got := tok.Decode(ids); got != text {
			t.Errorf("Decode(Encode(%q)) = %q", text, got)
		}
	}
}

func TestDecodeSkipsUnknownIDs(t *testing.T) {
	tok := shared()
	if got := tok.Decode([]int{24912, -1, 1 << 30, 2375}); got != "hello world" {
		t.Fatalf("Decode with unknown ids = %q, want %q", got, "hello world")
	}
}

// Token windows that cut a character in two decode to invalid UTF-8 at the
// cut, and concatenate back to the text: the splitter relies on it.
func TestWindowsConcatenateBackToTheText(t *testing.T) {
	tok := shared()
	text := "emoji 👋🌍🎉 日本語のテキスト family 👨‍👩‍👧‍👦"
	ids := tok.Encode(text)
	for size := 1; size <= 4; size++ {
		var sb strings.Builder
		for i := 0; i < len(ids); i += size {
			sb.WriteString(tok.Decode(ids[i:min(i+size, len(ids))]))
		}
		if sb.String() != text {
			t.Errorf("windows of %d tokens concatenate to %q", size, sb.String())
		}
	}
	if utf8.ValidString(tok.Decode(ids[:len(ids)-1])) && utf8.ValidString(tok.Decode(ids[len(ids)-1:])) {
		t.Log("note: the last token does not cut a character")
	}
}

// Every fixture document's token count is the one Vectra recorded.
func TestTokenCountsOfTheFixtureDocuments(t *testing.T) {
	tok := shared()
	docs := loadFixtureDocuments(t)
	for _, d := range docs {
		if got := len(tok.Encode(d.Text)); got != d.TokenLength {
			t.Errorf("%s: %d tokens, Vectra counted %d", d.URI, got, d.TokenLength)
		}
	}
}

// failingTransport fails every request: nothing may go through it.
type failingTransport struct{}

func (failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	os.Stderr.WriteString("NETWORK USED: " + req.URL.String() + "\n")
	os.Exit(3)
	return nil, errors.New("no network")
}

// The tokenizer loads in a child process whose network is unusable: proxies
// point at a closed port, the default HTTP transport exits the process, and
// tiktoken's cache directory is empty. It still encodes every golden text,
// and writes nothing to the cache.
func TestNoNetworkOrCacheAtRunTime(t *testing.T) {
	if os.Getenv("FOLIO_TIKTOKEN_NO_NETWORK_CHILD") == "1" {
		http.DefaultTransport = failingTransport{}
		tok := tokenizertiktoken.New()
		for _, g := range loadGolden(t) {
			if got := tok.Encode(g.Text); !slices.Equal(got, g.IDs) {
				t.Fatalf("Encode(%q) = %v, want %v", g.Text, got, g.IDs)
			}
		}
		os.Stdout.WriteString("CHILD ENCODED OK\n")
		return
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	cache := t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^TestNoNetworkOrCacheAtRunTime$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"FOLIO_TIKTOKEN_NO_NETWORK_CHILD=1",
		"HTTP_PROXY="+closed, "HTTPS_PROXY="+closed, "http_proxy="+closed, "https_proxy="+closed,
		"NO_PROXY=", "no_proxy=",
		"TIKTOKEN_CACHE_DIR="+cache, "DATA_GYM_CACHE_DIR="+cache,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CHILD ENCODED OK") {
		t.Fatalf("the child did not run the check:\n%s", out)
	}
	if entries, err := os.ReadDir(cache); err != nil || len(entries) != 0 {
		t.Fatalf("the tiktoken cache directory holds %d entries (err %v), want none", len(entries), err)
	}
}

func TestConcurrentFirstUseLoadsOnce(t *testing.T) {
	tok := tokenizertiktoken.New()
	want := []int{24912, 2375}
	done := make(chan []int)
	for range 8 {
		go func() { done <- tok.Encode("hello world") }()
	}
	for range 8 {
		if got := <-done; !slices.Equal(got, want) {
			t.Errorf("Encode = %v, want %v", got, want)
		}
	}
}
