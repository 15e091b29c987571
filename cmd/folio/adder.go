package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	"github.com/foliovec/folio/adapters/fetch"
	"github.com/foliovec/folio/core"
)

// addReport is what add did with every document and every path named:
// add's --json document.
type addReport struct {
	Index           string    `json:"index"`
	Added           []string  `json:"added"`
	Updated         []string  `json:"updated"`
	Unchanged       []string  `json:"unchanged"`
	Skipped         []skipped `json:"skipped"`
	Failed          []failure `json:"failed"`
	Documents       int       `json:"documents"` // added and updated
	Chunks          int       `json:"chunks"`
	EmbeddingsCalls int       `json:"embeddingsCalls"`
	Error           string    `json:"error,omitempty"`
	namedSkipped    int       // skipped paths the user named
	// hosted is set when the model is a hosted one, whose embeddings calls
	// are requests; a local model's are batches it runs itself.
	hosted bool
}

// skipped is a file add did not read, and why.
type skipped struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// failure is a path or URL add could not read.
type failure struct {
	URI   string `json:"uri"`
	Error string `json:"error"`
}

// summary is the report's text line.
func (r *addReport) summary() string {
	calls := plural(r.EmbeddingsCalls, "batch")
	if r.hosted {
		calls = plural(r.EmbeddingsCalls, "embeddings request")
	}
	s := fmt.Sprintf("added %s, updated %d, %d unchanged: %s embedded in %s",
		plural(len(r.Added), "document"), len(r.Updated), len(r.Unchanged),
		plural(r.Chunks, "chunk"), calls)
	if len(r.Skipped) > 0 || len(r.Failed) > 0 {
		s += fmt.Sprintf("; %d skipped, %d failed", len(r.Skipped), len(r.Failed))
	}
	return s
}

// adder is one add: it reads the named paths and URLs, upserts what it
// reads in groups, and accounts for each.
type adder struct {
	a      *app
	ix     *core.LocalDocumentIndex
	opts   core.UpsertDocumentsOptions
	walk   walkFlags
	web    *fetch.WebFetcher
	rep    addReport
	prog   *progress
	named  []string
	seen   map[string]bool   // URIs read, so a file named twice is added once
	stored map[string]string // canonical spelling of a stored local URI -> the stored one
	group  []core.DocumentInput
	bytes  int
	// base is what the groups before the current one did.
	baseDocs, baseChunks, baseCalls int
}

func (a *app) newAdder(ctx context.Context, folder string, ix *core.LocalDocumentIndex, web fetch.WebOptions, cookie string) (*adder, error) {
	if cookie != "" {
		web.Headers = map[string]string{"Cookie": cookie}
	}
	if web.Timeout == 0 {
		web.Timeout = -1 // --timeout 0: no limit
	}
	stored, err := storedSpellings(ctx, ix)
	if err != nil {
		return nil, err
	}
	return &adder{
		a: a, ix: ix, web: fetch.NewWebFetcher(&web), seen: map[string]bool{}, stored: stored,
		rep: addReport{Index: folder, Added: []string{}, Updated: []string{}, Unchanged: []string{}, Skipped: []skipped{}, Failed: []failure{}, hosted: hosted(ix.Embeddings())},
	}, nil
}

// storedSpellings maps the canonical spelling (core.LocalFileURI) of every
// stored local URI that is spelled otherwise (a relative path a Vectra
// index may hold) to the stored spelling, so that adding the file again
// updates that document instead of storing a second one.
func storedSpellings(ctx context.Context, ix *core.LocalDocumentIndex) (map[string]string, error) {
	uris, err := ix.DocumentURIs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, u := range uris {
		if isWebURI(u) || filepath.IsAbs(u) && filepath.Clean(u) == u {
			continue // a web page, or already as add and watch spell files
		}
		if c, err := core.LocalFileURI(u); err == nil && c != u {
			if _, taken := out[c]; !taken {
				out[c] = u
			}
		}
	}
	for _, u := range uris {
		delete(out, u) // the canonical spelling itself is stored: use it
	}
	return out, nil
}

func isWebURI(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// addAll reads and upserts every URI named.
func (ad *adder) addAll(ctx context.Context, named []string) error {
	ad.prog = ad.a.newProgress("adding")
	defer ad.prog.finish()
	done := map[string]bool{}
	for _, uri := range named {
		if !isWebURI(uri) {
			c, err := core.LocalFileURI(uri)
			if err != nil {
				ad.fail(uri, err)
				continue
			}
			uri = c
		}
		if done[uri] {
			continue // named twice
		}
		done[uri] = true
		ad.named = append(ad.named, uri)
		if err := ad.read(ctx, uri); err != nil {
			return err
		}
	}
	return ad.flush(ctx)
}

// read reads one named path or URL into the group, upserting full groups.
func (ad *adder) read(ctx context.Context, uri string) error {
	var f core.TextFetcher
	if isWebURI(uri) {
		f = ad.web
	} else {
		info, err := os.Stat(uri)
		switch {
		case err != nil:
			if errors.Is(err, fs.ErrNotExist) {
				err = errors.New("no such file or folder")
			}
			ad.fail(uri, err)
			return nil
		case !info.IsDir() && !info.Mode().IsRegular():
			ad.skip(uri, fetch.ErrNotRegular, true)
			return nil
		}
		f = fetch.NewFileFetcher(&fetch.FileOptions{
			FollowLinks: ad.walk.followLinks, MaxFileBytes: ad.walk.maxBytes(),
			OnSkip: func(p string, reason error) { ad.skip(p, reason, p == uri) },
		})
	}
	var groupErr error
	_, err := f.Fetch(ctx, uri, func(ctx context.Context, docURI, text, docType string) (bool, error) {
		if ad.seen[docURI] {
			return true, nil // also below another folder named
		}
		ad.seen[docURI] = true
		if stored, ok := ad.stored[docURI]; ok {
			docURI = stored
		}
		ad.group = append(ad.group, core.DocumentInput{URI: docURI, Text: text, DocType: docType})
		ad.bytes += len(text)
		if len(ad.group) >= addGroupFiles || ad.bytes >= addGroupBytes {
			if groupErr = ad.flush(ctx); groupErr != nil {
				return false, groupErr
			}
		}
		return true, nil
	})
	switch {
	case groupErr != nil:
		return groupErr
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		ad.fail(uri, err)
	}
	return nil
}

// flush upserts the group and sorts its documents into added, updated and
// unchanged.
func (ad *adder) flush(ctx context.Context) error {
	group := ad.group
	ad.group, ad.bytes = nil, 0
	if len(group) == 0 {
		return nil
	}
	before := make([]string, len(group))
	for i, d := range group {
		id, _, err := ad.ix.GetDocumentID(ctx, d.URI)
		if err != nil {
			return err
		}
		before[i] = id
	}
	opts := ad.opts
	var last core.UpsertProgress
	opts.Progress = func(p core.UpsertProgress) {
		last = p
		ad.prog.update(len(ad.seen), ad.baseDocs+p.Documents, ad.baseChunks+p.Chunks)
	}
	docs, err := ad.ix.UpsertDocuments(ctx, group, &opts)
	for i, doc := range docs {
		switch {
		case doc == nil:
		case doc.ID() == before[i]:
			ad.rep.Unchanged = append(ad.rep.Unchanged, group[i].URI)
		case before[i] != "":
			ad.rep.Updated = append(ad.rep.Updated, group[i].URI)
		default:
			ad.rep.Added = append(ad.rep.Added, group[i].URI)
		}
	}
	ad.baseDocs += last.Documents
	ad.baseChunks += last.Chunks
	ad.baseCalls += last.EmbeddingsCalls
	ad.rep.Documents = len(ad.rep.Added) + len(ad.rep.Updated)
	ad.rep.Chunks, ad.rep.EmbeddingsCalls = ad.baseChunks, ad.baseCalls
	if err != nil && ctx.Err() == nil {
		ad.rep.Error = err.Error()
	}
	return err
}

// fail reports a path or URL that could not be read.
func (ad *adder) fail(uri string, err error) {
	fmt.Fprintf(ad.a.stderr, "not added: %s: %v\n", uri, err)
	ad.rep.Failed = append(ad.rep.Failed, failure{URI: uri, Error: err.Error()})
}

// skip reports a file that is not a document; named says the user named
// it rather than a folder above it.
func (ad *adder) skip(uri string, reason error, named bool) {
	fmt.Fprintf(ad.a.stderr, "skipped: %s: %v\n", uri, reason)
	ad.rep.Skipped = append(ad.rep.Skipped, skipped{URI: uri, Reason: reason.Error()})
	if named {
		ad.rep.namedSkipped++
	}
}

// hosted reports whether m is a hosted embeddings model (each of its calls
// a request to a service).
func hosted(m core.EmbeddingsModel) bool {
	_, ok := m.(*embedhosted.HostedEmbeddings)
	return ok
}

func (r *addReport) writeText(w io.Writer) { fmt.Fprintln(w, r.summary()) }
