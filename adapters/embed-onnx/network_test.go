package embedonnx

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/hub/hubtest"
	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

// countingProxy is set as every proxy a download would go through; it
// counts the connections made to it and serves none.
func countingProxy(t *testing.T) *atomic.Int64 {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var connections atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	setProxy(t, "http://"+ln.Addr().String())
	return &connections
}

func setProxy(t *testing.T, proxy string) {
	for _, env := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		t.Setenv(env, proxy)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
}

func TestNoNetworkWithoutAFetch(t *testing.T) {
	t.Run("a model in place loads and runs with no connection", func(t *testing.T) {
		connections := countingProxy(t)
		t.Setenv(hub.EndpointEnv, "http://hub.invalid")
		dir, _ := tinyModel(t, bertgen.Folder{})
		m := create(t, TransformersOptions{Model: dir})
		if _, err := m.CreateEmbeddings(t.Context(), []string{"hello world"}); err != nil {
			t.Fatal(err)
		}
		if n := connections.Load(); n != 0 {
			t.Errorf("%d connections reached the proxy", n)
		}
	})
	t.Run("offline, an id not in place is an error, never a download", func(t *testing.T) {
		connections := countingProxy(t)
		t.Setenv(hub.EndpointEnv, "http://hub.invalid")
		models := t.TempDir()
		_, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: "Xenova/all-MiniLM-L6-v2", ModelsDir: models, Hub: hub.Options{Offline: true}})
		if !errors.Is(err, ErrModelNotFound) || !errors.Is(err, hub.ErrOffline) || !strings.Contains(err.Error(), models) {
			t.Fatalf("absent model, offline: %v, want ErrModelNotFound and ErrOffline naming the folder", err)
		}
		t.Setenv(hub.OfflineEnv, "1")
		local := NewLocalEmbeddings(&LocalOptions{ModelsDir: models})
		if _, err := local.CreateEmbeddings(t.Context(), []string{"hello"}); !errors.Is(err, ErrModelNotFound) || !errors.Is(err, hub.ErrOffline) {
			t.Fatalf("absent local model, $HF_HUB_OFFLINE: %v, want ErrModelNotFound", err)
		}
		if n := connections.Load(); n != 0 {
			t.Errorf("%d connections reached the proxy", n)
		}
	})
}

// A model id not in the models folder is fetched from the hub once
// (through the proxy the environment names), then loads from the folder
// with no request; both model types do it, and report the download.
func TestModelIDFetchedFromTheHub(t *testing.T) {
	dir, weights := tinyModel(t, bertgen.Folder{})
	srv := hubtest.New()
	defer srv.Close()
	if _, err := srv.AddFolder("acme/tiny-bert", dir); err != nil {
		t.Fatal(err)
	}
	// The endpoint is a name only the proxy knows; the proxy forwards to
	// the fake hub. (Requests to 127.0.0.1 itself are never proxied.)
	target, _ := url.Parse(srv.URL)
	var proxied atomic.Int64
	forward := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		forward.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	setProxy(t, proxy.URL)
	t.Setenv(hub.EndpointEnv, "http://hub.example")

	models := t.TempDir()
	var mu sync.Mutex
	var progress []string
	m := create(t, TransformersOptions{Model: "acme/tiny-bert", ModelsDir: models, Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, p.Status+" "+p.File)
	}})
	resp, err := m.CreateEmbeddings(t.Context(), []string{"hello world"})
	if err != nil {
		t.Fatal(err)
	}
	want := referenceEmbedding(weights, m.GetTokenizer().Encode("hello world"), PoolingMean, true)
	if d := maxAbsDiff(resp.Output[0], want); d > tolerance {
		t.Errorf("the fetched model's vector differs from the model's by %g", d)
	}
	if proxied.Load() == 0 {
		t.Errorf("no request went through $HTTP_PROXY")
	}
	for _, step := range []string{"download onnx/model.onnx", "done onnx/model.onnx", "ready "} {
		if !slices.Contains(progress, step) {
			t.Errorf("progress %v lacks %q", progress, step)
		}
	}
	first := srv.Requests()
	t.Logf("first load: %d requests", len(first))

	local := NewLocalEmbeddings(&LocalOptions{Model: "acme/tiny-bert", ModelsDir: models})
	defer local.Close()
	again, err := local.CreateEmbeddings(t.Context(), []string{"hello world"})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(again.Output[0], want); d > tolerance {
		t.Errorf("the model in place gives another vector (%g)", d)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("a model in place cost %d requests: %v", len(reqs), reqs)
	}
}
