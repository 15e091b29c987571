package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	"github.com/foliovec/folio/core"
)

// Environment variables read when the options leave a setting empty.
const (
	EndpointEnv  = "HF_ENDPOINT"
	TokenEnv     = "HF_TOKEN"
	OfflineEnv   = "HF_HUB_OFFLINE"
	ModelsDirEnv = "FOLIO_MODELS_DIR"
)

// DefaultEndpoint is the hub's address.
const DefaultEndpoint = "https://huggingface.co"

// Defaults of the limits in Options.
const (
	DefaultFileTimeout  = 30 * time.Minute
	DefaultStallTimeout = 60 * time.Second
	DefaultMaxFileSize  = 4 << 30
)

// Errors a pull wraps; see the package documentation.
var (
	ErrNotFound     = fmt.Errorf("model not found: %w", fs.ErrNotExist)
	ErrOffline      = errors.New("offline: the network is not to be used")
	ErrChecksum     = fmt.Errorf("checksum mismatch: %w", core.ErrCorrupt)
	ErrTooLarge     = errors.New("file larger than the size cap")
	ErrUnauthorized = errors.New("not authorised: a gated or private model needs HF_TOKEN")
)

// Options configures a Hub. The zero value reads the endpoint, token and
// offline mode from the environment.
type Options struct {
	// Endpoint is the hub's base URL: "" means $HF_ENDPOINT, else
	// DefaultEndpoint.
	Endpoint string
	// Token is sent as a bearer token to the endpoint (never to the hosts
	// it redirects to): "" means $HF_TOKEN.
	Token string
	// Offline refuses the network: a model must already be in the folder.
	// $HF_HUB_OFFLINE set to 1, true, yes or on turns it on too.
	Offline bool
	// Client makes the requests; nil means a client with the standard
	// proxy variables ($HTTPS_PROXY, $HTTP_PROXY, $NO_PROXY).
	Client *http.Client
	// FileTimeout bounds one file's download; 0 means DefaultFileTimeout.
	FileTimeout time.Duration
	// StallTimeout ends a download that receives nothing for this long;
	// 0 means DefaultStallTimeout.
	StallTimeout time.Duration
	// MaxFileSize refuses a file larger than this; 0 means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// Progress, when set, is called as files are checked and downloaded.
	Progress func(Progress)
	// Logger receives debug logs (URLs, sizes; never the token); nil
	// means silent.
	Logger *slog.Logger
}

// Progress reports a pull, in the shape of transformers.js's progress
// callback.
type Progress struct {
	// Status is "initiate" (a file is being looked up), "download" (its
	// download starts), "progress" (part of it arrived), "done" (it is in
	// place, downloaded or found) or "ready" (the whole model is).
	Status string
	// File is the file's path in the model's folder ("" for ready).
	File string
	// Loaded and Total are bytes of File: received (a resumed download
	// counts what it had) and expected (0 when unknown).
	Loaded, Total int64
}

// Hub fetches models into a models folder. Create it with New.
type Hub struct {
	dir      string
	dirErr   error
	endpoint string
	token    string
	offline  bool
	client   *http.Client
	timeout  time.Duration
	stall    time.Duration
	maxSize  int64
	progress func(Progress)
	logger   *slog.Logger
}

// New returns a Hub that keeps models in dir: "" means $FOLIO_MODELS_DIR,
// else <user cache folder>/folio/models. nil opts are the defaults.
func New(dir string, o *Options) *Hub {
	var opts Options
	if o != nil {
		opts = *o
	}
	h := &Hub{
		dir: dir, endpoint: opts.Endpoint, token: opts.Token, offline: opts.Offline || offlineEnv(),
		client: opts.Client, timeout: opts.FileTimeout, stall: opts.StallTimeout, maxSize: opts.MaxFileSize,
		progress: opts.Progress, logger: opts.Logger,
	}
	if h.dir == "" {
		h.dir, h.dirErr = DefaultDir()
	}
	if h.endpoint == "" {
		h.endpoint = os.Getenv(EndpointEnv)
	}
	if h.endpoint == "" {
		h.endpoint = DefaultEndpoint
	}
	h.endpoint = strings.TrimRight(h.endpoint, "/")
	if h.token == "" {
		h.token = os.Getenv(TokenEnv)
	}
	if h.client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = http.ProxyFromEnvironment
		h.client = &http.Client{Transport: t}
	}
	if h.timeout <= 0 {
		h.timeout = DefaultFileTimeout
	}
	if h.stall <= 0 {
		h.stall = DefaultStallTimeout
	}
	if h.maxSize <= 0 {
		h.maxSize = DefaultMaxFileSize
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	return h
}

// DefaultDir is the models folder when none is given: $FOLIO_MODELS_DIR,
// else <user cache folder>/folio/models.
func DefaultDir() (string, error) {
	if dir := os.Getenv(ModelsDirEnv); dir != "" {
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("hub: no models folder (set %s): %w", ModelsDirEnv, err)
	}
	return filepath.Join(cache, "folio", "models"), nil
}

func offlineEnv() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(OfflineEnv))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Dir is the models folder.
func (h *Hub) Dir() (string, error) { return h.dir, h.dirErr }

// Offline reports whether the hub refuses the network.
func (h *Hub) Offline() bool { return h.offline }

// Model is a model in the models folder.
type Model struct {
	// Ref is the model's id and revision.
	Ref Ref
	// Dir is its folder.
	Dir string
	// Commit is the hub commit its files came from ("" for a folder filled
	// by hand).
	Commit string
	// Files are its files, as pulled (empty for a folder filled by hand).
	Files []File
}

// File is one file of a pulled model.
type File struct {
	// Path is relative to the model's folder, with slashes.
	Path string `json:"path"`
	// Size is in bytes.
	Size int64 `json:"size"`
	// Checksum is the hub's: "sha256:<hex>" or "git-sha1:<hex>"; "" when
	// the hub gave none.
	Checksum string `json:"checksum,omitempty"`
}

// manifestName is the record of a pull in a model's folder.
const manifestName = ".folio-pull.json"

// manifest is the content of manifestName.
type manifest struct {
	ID       string `json:"id"`
	Revision string `json:"revision"`
	Commit   string `json:"commit"`
	Endpoint string `json:"endpoint"`
	Files    []File `json:"files"`
}

// Local returns the model when its folder holds what dtype needs (a model
// file and a tokenizer), without any request; ok is false otherwise.
func (h *Hub) Local(ref string, dtype string) (m Model, ok bool, err error) {
	r, err := ParseRef(ref)
	if err != nil {
		return Model{}, false, err
	}
	if h.dirErr != nil {
		return Model{}, false, h.dirErr
	}
	names, err := wordpiece.ModelFileNames(dtype)
	if err != nil {
		return Model{}, false, err
	}
	folder := r.folder(h.dir)
	if !complete(folder, names) {
		return Model{}, false, nil
	}
	return readModel(r, folder), true, nil
}

// complete reports whether folder has one of the model file names (under
// onnx/ or at the top) and a tokenizer.
func complete(folder string, names []string) bool {
	if !isFile(filepath.Join(folder, "tokenizer.json")) && !isFile(filepath.Join(folder, "vocab.txt")) {
		return false
	}
	for _, name := range names {
		if isFile(filepath.Join(folder, "onnx", name)) || isFile(filepath.Join(folder, name)) {
			return true
		}
	}
	return false
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// readModel is the model in folder, with its pull record when it has one.
func readModel(r Ref, folder string) Model {
	m := Model{Ref: r, Dir: folder}
	if man, err := readManifest(folder); err == nil {
		m.Commit, m.Files = man.Commit, man.Files
	}
	return m
}

func readManifest(folder string) (manifest, error) {
	var man manifest
	raw, err := os.ReadFile(filepath.Join(folder, manifestName))
	if err != nil {
		return man, err
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		return man, fmt.Errorf("hub: %s: %w: %w", filepath.Join(folder, manifestName), core.ErrCorrupt, err)
	}
	return man, nil
}

// want is one file a model needs, or one of several alternatives.
type want struct {
	paths    []string // tried in order; the first the hub has is taken
	required bool
}

// wants are the files a model of dtype needs, as transformers.js fetches
// them, plus the sentence-transformers pooling config.
func wants(dtype string) ([]want, error) {
	names, err := wordpiece.ModelFileNames(dtype)
	if err != nil {
		return nil, err
	}
	model := want{required: true}
	for _, n := range names {
		model.paths = append(model.paths, "onnx/"+n)
	}
	return []want{
		model,
		{paths: []string{"tokenizer.json", "vocab.txt"}, required: true},
		{paths: []string{"tokenizer_config.json"}},
		{paths: []string{"config.json"}},
		{paths: []string{"1_Pooling/config.json"}},
	}, nil
}

// Pull returns the model for dtype ("" or fp32, fp16, q8, q4), fetching
// the files its folder lacks. A model already in place costs no request.
func (h *Hub) Pull(ctx context.Context, ref string, dtype string) (Model, error) {
	r, err := ParseRef(ref)
	if err != nil {
		return Model{}, err
	}
	ws, err := wants(dtype)
	if err != nil {
		return Model{}, err
	}
	if m, ok, err := h.Local(ref, dtype); err != nil || ok {
		if ok {
			h.report(Progress{Status: "ready"})
		}
		return m, err
	}
	folder := r.folder(h.dir)
	if dtype == "" {
		dtype = "fp32"
	}
	if h.offline {
		return Model{}, &quietError{
			msg:  fmt.Sprintf("hub: model %s (%s) is not in %s, and the network is off (%s or an offline option): fetch it once with a network", r, dtype, folder, OfflineEnv),
			errs: []error{ErrOffline, ErrNotFound},
		}
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return Model{}, fmt.Errorf("hub: model %s: models folder %s is not writable: %w", r, h.dir, err)
	}
	lock := flock.New(filepath.Join(folder, ".folio-pull.lock"))
	locked, err := lock.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil || !locked {
		if err == nil {
			err = ctx.Err()
		}
		return Model{}, fmt.Errorf("hub: model %s: lock %s: %w", r, lock.Path(), err)
	}
	defer lock.Unlock()
	// Another process may have pulled it while this one waited.
	if m, ok, err := h.Local(ref, dtype); err != nil || ok {
		if ok {
			h.report(Progress{Status: "ready"})
		}
		return m, err
	}
	p := &pull{hub: h, ref: r, folder: folder, revision: r.rev()}
	if man, err := readManifest(folder); err == nil && man.Commit != "" {
		// Files added to a pulled model come from the same commit.
		p.man, p.revision = man, man.Commit
	} else {
		p.man = manifest{ID: r.ID, Revision: r.rev()}
	}
	p.man.Endpoint = redact(h.endpoint)
	for _, w := range ws {
		if err := p.fetch(ctx, w); err != nil {
			return Model{}, err
		}
	}
	if err := p.writeManifest(); err != nil {
		return Model{}, err
	}
	os.Remove(filepath.Join(folder, ".incomplete"))
	h.report(Progress{Status: "ready"})
	return readModel(r, folder), nil
}

// List returns the models in the models folder: those pulled and those
// filled by hand in the same layout (any folder with a tokenizer and an
// ONNX file), sorted by id.
func (h *Hub) List() ([]Model, error) {
	if h.dirErr != nil {
		return nil, h.dirErr
	}
	var models []Model
	add := func(id, path string) {
		name, rev, _ := strings.Cut(id, "@")
		if _, err := ParseRef(id); err != nil {
			return
		}
		if !isFile(filepath.Join(path, "tokenizer.json")) && !isFile(filepath.Join(path, "vocab.txt")) {
			return
		}
		models = append(models, readModel(Ref{ID: name, Revision: rev}, path))
	}
	owners, err := os.ReadDir(h.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hub: models folder: %w", err)
	}
	for _, o := range owners {
		if !o.IsDir() || strings.HasPrefix(o.Name(), ".") {
			continue
		}
		top := filepath.Join(h.dir, o.Name())
		add(o.Name(), top)
		entries, err := os.ReadDir(top)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "onnx" && e.Name() != "1_Pooling" {
				add(o.Name()+"/"+e.Name(), filepath.Join(top, e.Name()))
			}
		}
	}
	slices.SortFunc(models, func(a, b Model) int { return strings.Compare(a.Ref.String(), b.Ref.String()) })
	return models, nil
}

func (h *Hub) report(p Progress) {
	if h.progress != nil {
		h.progress(p)
	}
}

// redact is an endpoint without any user and password it carries.
func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// quietError has a message of its own and wraps sentinels whose texts
// would only repeat it.
type quietError struct {
	msg  string
	errs []error
}

func (e *quietError) Error() string   { return e.msg }
func (e *quietError) Unwrap() []error { return e.errs }
