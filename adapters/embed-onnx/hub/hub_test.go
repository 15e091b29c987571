package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/hub/hubtest"
	"github.com/foliovec/folio/core"
)

const id = "acme/tiny-encoder"

// modelFiles is a model's files as the hub holds them: a large ONNX file
// (served from the file host) and small JSON and text files (from the hub).
func modelFiles() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	onnx := make([]byte, 600<<10)
	for i := range onnx {
		onnx[i] = byte(rng.Uint32())
	}
	return map[string][]byte{
		"onnx/model.onnx":           onnx,
		"onnx/model_quantized.onnx": onnx[:200<<10],
		"tokenizer.json":            []byte(`{"model":{"type":"WordPiece","vocab":{"[PAD]":0}}}`),
		"tokenizer_config.json":     []byte(`{"do_lower_case":true}`),
		"config.json":               []byte(`{"max_position_embeddings":512}`),
		"README.md":                 []byte("not fetched"),
	}
}

func newHub(t *testing.T, dir string, opts hub.Options) (*hub.Hub, *hubtest.Server) {
	t.Helper()
	srv := hubtest.New()
	t.Cleanup(srv.Close)
	srv.Add(id, modelFiles())
	opts.Endpoint = srv.URL
	return hub.New(dir, &opts), srv
}

// Every request a pull makes, and that a pulled model costs none again:
// not the same Hub, not a new one (another process), not Local.
func TestPullFetchesOnceVerifiedAndRecorded(t *testing.T) {
	dir := t.TempDir()
	var progress []string
	var mu sync.Mutex
	h, srv := newHub(t, dir, hub.Options{Progress: func(p hub.Progress) {
		mu.Lock()
		progress = append(progress, p.Status+" "+p.File)
		mu.Unlock()
	}})
	m, err := h.Pull(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "acme", "tiny-encoder")
	if m.Dir != folder || m.Ref.ID != id || len(m.Commit) != 40 {
		t.Fatalf("pulled %+v, want folder %s and a commit", m, folder)
	}
	want := modelFiles()
	for _, path := range []string{"onnx/model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json"} {
		got, err := os.ReadFile(filepath.Join(folder, path))
		if err != nil || !bytes.Equal(got, want[path]) {
			t.Errorf("%s: %d bytes (%v), want the hub's %d", path, len(got), err, len(want[path]))
		}
	}
	for _, absent := range []string{"onnx/model_quantized.onnx", "README.md", ".incomplete"} {
		if _, err := os.Stat(filepath.Join(folder, absent)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is in the folder (%v): a fp32 pull fetches only what fp32 needs", absent, err)
		}
	}
	reqs := srv.Requests()
	t.Logf("first pull: %d requests: %v", len(reqs), reqs)
	gets := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, "files GET /blobs/") {
			gets++
		}
		if strings.Contains(r, "/resolve/main/") && !strings.Contains(r, "onnx/model.onnx") {
			t.Errorf("%s: after the first file, files come from its commit, not from main", r)
		}
	}
	if gets != 1 {
		t.Errorf("the ONNX file was fetched %d times from the file host, want 1", gets)
	}
	var rec struct {
		ID, Revision, Commit string
		Files                []hub.File
	}
	raw, err := os.ReadFile(filepath.Join(folder, ".folio-pull.json"))
	if err != nil || json.Unmarshal(raw, &rec) != nil {
		t.Fatalf("pull record: %v", err)
	}
	if rec.ID != id || rec.Revision != "main" || rec.Commit != m.Commit || len(rec.Files) != 4 {
		t.Errorf("pull record %+v", rec)
	}
	for _, f := range rec.Files {
		if f.Size != int64(len(want[f.Path])) || !strings.HasPrefix(f.Checksum, map[bool]string{true: "sha256:", false: "git-sha1:"}[strings.HasSuffix(f.Path, ".onnx")]) {
			t.Errorf("recorded %+v", f)
		}
	}
	for _, step := range []string{"initiate onnx/model.onnx", "download onnx/model.onnx", "done onnx/model.onnx", "done tokenizer.json", "ready "} {
		if !slices.Contains(progress, step) {
			t.Errorf("progress %v lacks %q", progress, step)
		}
	}

	// Again, from this Hub and from a new one (another process), offline
	// or not: no request.
	if _, err := h.Pull(t.Context(), id, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := hub.New(dir, &hub.Options{Endpoint: srv.URL, Offline: true}).Pull(t.Context(), id, "fp32"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := hub.New(dir, nil).Local(id, ""); !ok || err != nil {
		t.Errorf("Local after a pull: %v, %v", ok, err)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("a model in place cost %d requests: %v", len(reqs), reqs)
	}

	// Another dtype adds its file, from the commit already pulled.
	if _, err := h.Pull(t.Context(), id, "q8"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(folder, "onnx", "model_quantized.onnx")); !bytes.Equal(got, want["onnx/model_quantized.onnx"]) {
		t.Errorf("q8 file: %d bytes", len(got))
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r, "/resolve/main/") {
			t.Errorf("%s: a second dtype is fetched from the first pull's commit", r)
		}
	}
	list, err := h.List()
	if err != nil || len(list) != 1 || list[0].Ref.ID != id || len(list[0].Files) != 5 {
		t.Errorf("List = %+v, %v", list, err)
	}
}

// HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE are read when the options are
// empty; the token reaches the hub, not the file host, and is written
// nowhere.
func TestEnvironmentAndToken(t *testing.T) {
	srv := hubtest.New()
	defer srv.Close()
	srv.Add(id, modelFiles())
	const token = "hf_secret_token_123"
	srv.RequireToken(token)
	dir := t.TempDir()
	t.Setenv(hub.EndpointEnv, srv.URL)
	t.Setenv(hub.TokenEnv, "")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	_, err := hub.New(dir, &hub.Options{Logger: logger}).Pull(t.Context(), id, "")
	if !errors.Is(err, hub.ErrUnauthorized) || !strings.Contains(err.Error(), "HF_TOKEN") {
		t.Fatalf("a gated model without a token: %v, want ErrUnauthorized naming HF_TOKEN", err)
	}
	t.Setenv(hub.TokenEnv, token)
	_, err = hub.New(dir, &hub.Options{Logger: logger}).Pull(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	if auths := srv.FileHostAuthorizations(); len(auths) != 0 {
		t.Errorf("the file host received the token: %v", auths)
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(token)) {
				t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), "hub: get") {
		t.Errorf("debug logs hold the token, or nothing: %s", logs.String())
	}

	t.Setenv(hub.OfflineEnv, "1")
	empty := t.TempDir()
	srv.Requests()
	_, err = hub.New(empty, nil).Pull(t.Context(), id, "")
	if !errors.Is(err, hub.ErrOffline) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), empty) {
		t.Errorf("offline with an empty folder: %v, want ErrOffline naming the model and the folder", err)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("offline made requests: %v", reqs)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("offline wrote into the models folder: %v", entries)
	}
}

// noModelFile fails unless the folder holds no model file, in place or
// looking complete, and Local does not see the model.
func noModelFile(t *testing.T, h *hub.Hub, dir string) {
	t.Helper()
	folder := filepath.Join(dir, "acme", "tiny-encoder")
	if _, err := os.Stat(filepath.Join(folder, "onnx", "model.onnx")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("onnx/model.onnx is in place after a failed pull: %v", err)
	}
	if _, ok, _ := h.Local(id, ""); ok {
		t.Errorf("Local sees a model after a failed pull")
	}
}

func TestHostileHub(t *testing.T) {
	t.Run("truncated body, resumed", func(t *testing.T) {
		dir := t.TempDir()
		h, srv := newHub(t, dir, hub.Options{})
		srv.Break("onnx/model.onnx", hubtest.Truncate)
		_, err := h.Pull(t.Context(), id, "")
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "resume") {
			t.Fatalf("truncated body: %v, want io.ErrUnexpectedEOF saying it resumes", err)
		}
		noModelFile(t, h, dir)
		srv.Break("onnx/model.onnx", 0)
		srv.Requests()
		if _, err := h.Pull(t.Context(), id, ""); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "acme", "tiny-encoder", "onnx", "model.onnx")); !bytes.Equal(got, modelFiles()["onnx/model.onnx"]) {
			t.Errorf("resumed file differs from the hub's")
		}
		resumed := false
		for _, r := range srv.Requests() {
			resumed = resumed || strings.HasPrefix(r, "files GET /blobs/") && strings.HasSuffix(r, "bytes=307200-")
		}
		if !resumed {
			t.Errorf("the second pull did not resume from the half the first one kept")
		}
	})
	t.Run("wrong checksum", func(t *testing.T) {
		for _, path := range []string{"onnx/model.onnx", "tokenizer.json"} {
			dir := t.TempDir()
			h, srv := newHub(t, dir, hub.Options{})
			srv.Break(path, hubtest.Corrupt)
			_, err := h.Pull(t.Context(), id, "")
			if !errors.Is(err, hub.ErrChecksum) || !errors.Is(err, core.ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("%s corrupted: %v, want ErrChecksum naming it", path, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "acme", "tiny-encoder", filepath.FromSlash(path))); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a corrupted %s was put in place", path)
			}
			if parts, _ := os.ReadDir(filepath.Join(dir, "acme", "tiny-encoder", ".incomplete")); len(parts) != 0 {
				t.Errorf("a corrupted download is kept: %v", parts)
			}
			if _, ok, _ := h.Local(id, ""); ok {
				t.Errorf("Local sees a model after a failed pull")
			}
		}
	})
	t.Run("404 for one file", func(t *testing.T) {
		dir := t.TempDir()
		h, srv := newHub(t, dir, hub.Options{})
		srv.Break("config.json", hubtest.Missing) // optional: the pull goes on
		if _, err := h.Pull(t.Context(), id, ""); err != nil {
			t.Fatalf("a model without config.json: %v", err)
		}
		dir = t.TempDir()
		h, srv = newHub(t, dir, hub.Options{})
		srv.Break("onnx/model.onnx", hubtest.Missing)
		_, err := h.Pull(t.Context(), id, "")
		if !errors.Is(err, hub.ErrNotFound) || !strings.Contains(err.Error(), "onnx/model.onnx") {
			t.Errorf("no model file: %v, want ErrNotFound naming onnx/model.onnx", err)
		}
		noModelFile(t, h, dir)
		_, err = h.Pull(t.Context(), "acme/no-such-model", "")
		if !errors.Is(err, hub.ErrNotFound) || !strings.Contains(err.Error(), "no such model") {
			t.Errorf("no such model: %v", err)
		}
	})
	t.Run("redirect loop", func(t *testing.T) {
		dir := t.TempDir()
		h, srv := newHub(t, dir, hub.Options{})
		srv.Break("onnx/model.onnx", hubtest.Loop)
		_, err := h.Pull(t.Context(), id, "")
		if err == nil || !strings.Contains(err.Error(), "redirect") {
			t.Fatalf("a redirect loop: %v", err)
		}
		noModelFile(t, h, dir)
	})
	t.Run("stalled server", func(t *testing.T) {
		dir := t.TempDir()
		h, srv := newHub(t, dir, hub.Options{StallTimeout: 300 * time.Millisecond})
		srv.Break("onnx/model.onnx", hubtest.Stall)
		start := time.Now()
		_, err := h.Pull(t.Context(), id, "")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no data for") {
			t.Fatalf("a stalled server: %v, want context.DeadlineExceeded saying no data came", err)
		}
		t.Logf("the stall ended after %s", time.Since(start).Round(time.Millisecond))
		noModelFile(t, h, dir)

		h, srv = newHub(t, t.TempDir(), hub.Options{FileTimeout: 300 * time.Millisecond, StallTimeout: time.Minute})
		srv.Break("onnx/model.onnx", hubtest.Stall)
		if _, err := h.Pull(t.Context(), id, ""); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a file over its deadline: %v", err)
		}
	})
	t.Run("size cap", func(t *testing.T) {
		dir := t.TempDir()
		h, _ := newHub(t, dir, hub.Options{MaxFileSize: 100 << 10})
		if _, err := h.Pull(t.Context(), id, ""); !errors.Is(err, hub.ErrTooLarge) {
			t.Errorf("a file over the cap: %v", err)
		}
		noModelFile(t, h, dir)
	})
	t.Run("read-only models folder", func(t *testing.T) {
		dir := readOnlyDir(t)
		h, srv := newHub(t, dir, hub.Options{})
		_, err := h.Pull(t.Context(), id, "")
		if err == nil || !strings.Contains(err.Error(), "not writable") || !strings.Contains(err.Error(), dir) {
			t.Fatalf("a read-only folder: %v", err)
		}
		if reqs := srv.Requests(); len(reqs) != 0 {
			t.Errorf("a read-only folder still downloaded: %v", reqs)
		}
	})
	t.Run("ids that are not", func(t *testing.T) {
		dir := t.TempDir()
		h, srv := newHub(t, dir, hub.Options{})
		for _, bad := range []string{"../etc", "acme/../../x", "acme/..", "a/b/c", "/abs/path", "acme/x@../y", "acme/x@", "", "acme/ x"} {
			if _, err := h.Pull(t.Context(), bad, ""); !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("Pull(%q) = %v, want ErrInvalidArgument", bad, err)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 || len(srv.Requests()) != 0 {
			t.Errorf("bad ids wrote %v or made requests", entries)
		}
	})
}

// readOnlyDir is a models folder no one may write in: a folder without
// write permission, or, for root (who writes anywhere), one under /sys.
func readOnlyDir(t *testing.T) string {
	if os.Geteuid() == 0 && runtime.GOOS == "linux" {
		return "/sys/folio-models-test"
	}
	dir := filepath.Join(t.TempDir(), "models")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A revision other than main has a folder of its own.
func TestRevision(t *testing.T) {
	dir := t.TempDir()
	h, srv := newHub(t, dir, hub.Options{})
	commit := srv.Add(id, modelFiles())
	m, err := h.Pull(t.Context(), id+"@"+commit, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Dir != filepath.Join(dir, "acme", "tiny-encoder@"+commit) || m.Commit != commit || m.Ref.String() != id+"@"+commit {
		t.Errorf("pulled %+v", m)
	}
	if _, err := h.Pull(t.Context(), id+"@v9", ""); !errors.Is(err, hub.ErrNotFound) {
		t.Errorf("an unknown revision: %v", err)
	}
}

// Two processes pulling one model at once: one downloads, the other waits
// for it and finds the files in place.
func TestTwoProcessesPullOneModel(t *testing.T) {
	if os.Getenv("HUB_TEST_PULL_DIR") != "" {
		return // the helper below, in a child
	}
	srv := hubtest.New()
	defer srv.Close()
	srv.Add(id, modelFiles())
	srv.SlowDown(20 * time.Millisecond) // about 200 ms a download
	dir := t.TempDir()
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestPullHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "HUB_TEST_PULL_DIR="+dir, hub.EndpointEnv+"="+srv.URL)
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || !bytes.Contains(outs[i], []byte("pulled")) {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	gets := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r, "files GET") {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("the ONNX file was downloaded %d times by two processes, want once", gets)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "acme", "tiny-encoder", "onnx", "model.onnx")); !bytes.Equal(got, modelFiles()["onnx/model.onnx"]) {
		t.Errorf("the file two processes pulled differs from the hub's")
	}
}

func TestPullHelper(t *testing.T) {
	dir := os.Getenv("HUB_TEST_PULL_DIR")
	if dir == "" {
		t.Skip("run by TestTwoProcessesPullOneModel")
	}
	m, err := hub.New(dir, nil).Pull(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pulled %s at %s", m.Ref, m.Commit)
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"Xenova/all-MiniLM-L6-v2", "bert-base-uncased@main", "a/b@0123abc", "../x", "a/b/c", "a@b@c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := hub.ParseRef(s)
		if err != nil {
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Fatalf("ParseRef(%q): %v does not wrap ErrInvalidArgument", s, err)
			}
			return
		}
		// A ref names a folder inside the models folder, never outside.
		if !filepath.IsLocal(filepath.FromSlash(r.ID)) || strings.Contains(r.ID+r.Revision, "..") || strings.ContainsAny(r.Revision, `/\`) {
			t.Fatalf("ParseRef(%q) = %+v escapes the models folder", s, r)
		}
		back, err := hub.ParseRef(r.String())
		if err != nil || back.ID != r.ID || (back.Revision != r.Revision && r.Revision != "main") {
			t.Fatalf("ParseRef(%q).String() = %q reads back as %+v, %v", s, r.String(), back, err)
		}
	})
}
