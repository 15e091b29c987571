// Package hubtest is a fake Hugging Face hub on 127.0.0.1 for tests: it
// serves models with the hub's URL layout ({id}/resolve/{revision}/{path}),
// answers small files itself with their git blob hash as ETag, redirects
// large ones (.onnx files and anything over 64 KiB) to a second host with
// X-Linked-Etag (their SHA-256) and X-Linked-Size, sends X-Repo-Commit and
// the CORS headers a page needs, counts every request, and breaks on
// demand: a truncated or corrupted body, a missing file, a redirect loop,
// a stalled transfer, a model that needs a token.
package hubtest

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is a way for one file to break.
type Fault int

const (
	// Truncate sends half the body with the full Content-Length, then
	// closes the connection.
	Truncate Fault = iota + 1
	// Corrupt sends the right number of bytes, one of them wrong.
	Corrupt
	// Missing answers 404 for the file, as for a file the model lacks.
	Missing
	// Loop redirects the file's download to itself, forever.
	Loop
	// Stall sends the headers and a few bytes, then nothing until the
	// client gives up.
	Stall
)

// Server is the fake hub: URL is its endpoint (for HF_ENDPOINT); large
// files are served from a second server.
type Server struct {
	URL string

	hub, files *httptest.Server

	mu       sync.Mutex
	token    string
	delay    time.Duration
	models   map[string]*model // by id
	blobs    map[string][]byte // by SHA-256
	faults   map[string]Fault  // by path within a model
	requests []string
	auths    []string // Authorization headers seen by the file host
}

type model struct {
	commit string
	files  map[string][]byte
}

// New starts a fake hub; Close it when done.
func New() *Server {
	s := &Server{models: map[string]*model{}, blobs: map[string][]byte{}, faults: map[string]Fault{}}
	s.hub = httptest.NewServer(http.HandlerFunc(s.serveHub))
	s.files = httptest.NewServer(http.HandlerFunc(s.serveFiles))
	s.URL = s.hub.URL
	return s
}

// Close stops both servers.
func (s *Server) Close() {
	s.hub.CloseClientConnections()
	s.files.CloseClientConnections()
	s.hub.Close()
	s.files.Close()
}

// FilesURL is the second host's address.
func (s *Server) FilesURL() string { return s.files.URL }

// Add serves a model: files by path within it. It returns the commit.
func (s *Server) Add(id string, files map[string][]byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := sha1.New()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%x\n", p, sha256.Sum256(files[p]))
		if large(p, files[p]) {
			sum := sha256.Sum256(files[p])
			s.blobs[hex.EncodeToString(sum[:])] = files[p]
		}
	}
	commit := hex.EncodeToString(h.Sum(nil))
	s.models[id] = &model{commit: commit, files: files}
	return commit
}

// AddFolder serves the files of a model folder as the model id.
func (s *Server) AddFolder(id, dir string) (string, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		return "", err
	}
	return s.Add(id, files), nil
}

// RequireToken makes the hub answer 401 to requests without this bearer
// token, as for a gated model; the file host asks for none.
func (s *Server) RequireToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

// SlowDown sleeps d between 64 KiB pieces of a large file's body, so that
// downloads overlap.
func (s *Server) SlowDown(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Break makes path (within any model) fail as f; 0 mends it.
func (s *Server) Break(path string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == 0 {
		delete(s.faults, path)
		return
	}
	s.faults[path] = f
}

// Requests returns the requests served so far, as "METHOD path" (with the
// host's role first: "hub " or "files "), and forgets them.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// FileHostAuthorizations are the Authorization headers the file host saw.
func (s *Server) FileHostAuthorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.auths)
}

func large(path string, b []byte) bool { return strings.HasSuffix(path, ".onnx") || len(b) > 64<<10 }

func cors(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Headers", "Authorization, Range")
	w.Header().Set("Access-Control-Expose-Headers", "ETag, Content-Length, Content-Range, X-Repo-Commit, X-Linked-Etag, X-Linked-Size")
}

func (s *Server) log(role string, r *http.Request) {
	s.mu.Lock()
	line := role + " " + r.Method + " " + r.URL.Path
	if rg := r.Header.Get("Range"); rg != "" {
		line += " " + rg
	}
	s.requests = append(s.requests, line)
	if role == "files" && r.Header.Get("Authorization") != "" {
		s.auths = append(s.auths, r.Header.Get("Authorization"))
	}
	s.mu.Unlock()
}

// preflight sends the CORS headers, answers a preflight request (true:
// nothing more to do) and logs any other.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request, role string) bool {
	cors(w)
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	s.log(role, r)
	return false
}

func (s *Server) serveHub(w http.ResponseWriter, r *http.Request) {
	if s.preflight(w, r, "hub") {
		return
	}
	id, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/")
	rev, path, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	token := s.token
	s.mu.Unlock()
	if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		http.Error(w, "Access to this model is restricted", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	m := s.models[id]
	fault := s.faults[path]
	var body []byte
	var found bool
	if m != nil {
		body, found = m.files[path]
	}
	s.mu.Unlock()
	if m == nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, "Repository not found", http.StatusNotFound)
		return
	}
	if rev != "main" && rev != m.commit {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, "Revision not found", http.StatusNotFound)
		return
	}
	if !found || fault == Missing {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", m.commit)
	if fault == Loop && r.Method == http.MethodGet {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
		return
	}
	if large(path, body) {
		sum := sha256.Sum256(body)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(body)))
		w.Header().Set("Location", s.files.URL+"/blobs/"+hex.EncodeToString(sum[:])+"?path="+path)
		w.WriteHeader(http.StatusFound)
		return
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(body))
	h.Write(body)
	w.Header().Set("ETag", `"`+hex.EncodeToString(h.Sum(nil))+`"`)
	s.write(w, r, path, body, fault)
}

func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) {
	if s.preflight(w, r, "files") {
		return
	}
	sum := strings.TrimPrefix(r.URL.Path, "/blobs/")
	s.mu.Lock()
	body, ok := s.blobs[sum]
	fault := s.faults[r.URL.Query().Get("path")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", `"`+sum+`"`)
	s.write(w, r, r.URL.Query().Get("path"), body, fault)
}

// write sends body (honouring Range) or breaks as fault says.
func (s *Server) write(w http.ResponseWriter, r *http.Request, path string, body []byte, fault Fault) {
	switch fault {
	case Truncate:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(body[:len(body)/2])
			panic(http.ErrAbortHandler) // the connection closes short
		}
		return
	case Corrupt:
		body = bytes.Clone(body)
		body[len(body)/2] ^= 0xff
	case Stall:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(body[:min(len(body), 16)])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
		return
	}
	s.mu.Lock()
	delay := s.delay
	s.mu.Unlock()
	if delay > 0 && r.Method == http.MethodGet && r.Header.Get("Range") == "" {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		for off := 0; off < len(body); off += 64 << 10 {
			if _, err := w.Write(body[off:min(len(body), off+64<<10)]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(delay)
		}
		return
	}
	http.ServeContent(w, r, filepath.Base(path), time.Time{}, bytes.NewReader(body))
}
