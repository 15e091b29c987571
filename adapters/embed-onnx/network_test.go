package embedonnx

import (
	"errors"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

func TestNoNetworkAccess(t *testing.T) {
	t.Run("the package links no networking code", func(t *testing.T) {
		goTool, err := exec.LookPath("go")
		if err != nil {
			t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
		}
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list gave %d dependencies: %q", len(deps), out)
		}
		for _, dep := range deps {
			if dep == "net" || strings.HasPrefix(dep, "net/") || dep == "crypto/tls" {
				t.Errorf("the adapter depends on %s", dep)
			}
		}
	})
	t.Run("loading and embedding make no connection, even through a proxy", func(t *testing.T) {
		// A listener that counts every connection, set as every proxy a
		// download would go through.
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
		proxy := "http://" + ln.Addr().String()
		for _, env := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
			t.Setenv(env, proxy)
		}
		t.Setenv("NO_PROXY", "")
		t.Setenv("no_proxy", "")

		models := t.TempDir()
		// A model id that is not there: an error, never a download.
		_, err = CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: "Xenova/all-MiniLM-L6-v2", ModelsDir: models})
		if !errors.Is(err, ErrModelNotFound) {
			t.Fatalf("absent model: %v, want ErrModelNotFound", err)
		}
		local := NewLocalEmbeddings(&LocalOptions{ModelsDir: models})
		if _, err := local.CreateEmbeddings(t.Context(), []string{"hello"}); !errors.Is(err, ErrModelNotFound) {
			t.Fatalf("absent local model: %v, want ErrModelNotFound", err)
		}
		// A model that is there loads and runs.
		dir, _ := tinyModel(t, bertgen.Folder{})
		m := create(t, TransformersOptions{Model: dir})
		if _, err := m.CreateEmbeddings(t.Context(), []string{"hello world"}); err != nil {
			t.Fatal(err)
		}
		if n := connections.Load(); n != 0 {
			t.Errorf("%d connections reached the proxy", n)
		}
	})
}
