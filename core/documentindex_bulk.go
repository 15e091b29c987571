package core

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/foliovec/folio/core/internal/docfields"
	"github.com/foliovec/folio/core/internal/embedpipe"
	"github.com/foliovec/folio/core/internal/uuid"
)

// DocumentInput is one document of UpsertDocuments: the arguments of
// UpsertDocument.
type DocumentInput struct {
	URI      string
	Text     string
	DocType  string
	Metadata Metadata
}

// UpsertDocumentsOptions are the options of UpsertDocuments.
type UpsertDocumentsOptions struct {
	// Concurrency is the most embeddings requests in flight at once; 0
	// means 4. Embedding is usually bound by the model's latency, not by
	// this process, so requests overlap well.
	Concurrency int
	// BatchSize is the fewest documents a commit holds (the last one
	// excepted); 0 means 100. Each commit rewrites the whole index file,
	// so beyond BatchSize a commit also waits until its documents and
	// chunks are at least a quarter of the index's documents and items,
	// or CommitInterval has passed since the last one: a load of many small documents into a large
	// index rewrites it a number of times that grows with the logarithm
	// of its size, not with the number of documents. A cancelled or
	// failed call keeps every batch committed before.
	BatchSize int
	// CommitInterval is the longest a bulk load waits between commits
	// once BatchSize documents are ready, so that progress is stored
	// every so often however the index grows; 0 means 10 s. A negative
	// value commits every BatchSize documents, whatever the index's size.
	CommitInterval time.Duration
	// Force re-embeds documents whose content hash is unchanged.
	Force bool
	// Progress, when set, is called after every embeddings call and every
	// commit with the totals so far, from one goroutine at a time (never
	// two calls at once), and once more before UpsertDocuments returns.
	Progress func(UpsertProgress)
}

// UpsertProgress is the progress of an UpsertDocuments call.
type UpsertProgress struct {
	// Total is the number of documents given.
	Total int
	// Documents are the documents done: committed, or skipped as
	// unchanged or as superseded by a later input with the same URI
	// (Skipped counts those).
	Documents int
	Skipped   int
	// Chunks are the chunks embedded so far, in EmbeddingsCalls calls.
	Chunks          int
	EmbeddingsCalls int
}

// Defaults of UpsertDocumentsOptions.
const (
	defaultUpsertConcurrency    = 4
	defaultUpsertBatchSize      = 100
	defaultUpsertCommitInterval = 10 * time.Second
	// maxPendingChunks is the most embedded chunks a bulk load holds in
	// memory before it commits, whatever the index's size.
	maxPendingChunks = 50_000
)

// UpsertDocuments stores many documents as UpsertDocument stores one, with
// the work of a bulk load shared: chunks of several documents go into one
// embeddings request (up to the model's MaxTokens), up to
// opts.Concurrency requests are in flight at once, and the documents are
// committed in batches of at least opts.BatchSize (see its rules for
// large indexes), each commit writing the index file once. Documents whose content hash is unchanged are skipped without an
// embeddings call, unless opts.Force. When a URI appears more than once,
// its last document is stored.
//
// It returns one *LocalDocument per input, in order. On error (an invalid
// document is reported before any work; an embeddings or write failure, or
// a cancelled ctx, stops the call) the documents of the commits made before
// stay stored and their entries are set; the others are nil. Inside a
// batch opened with BeginUpdate the documents join it and are committed by
// EndUpdate (a failure leaves those applied before it in the batch).
//
// Documents are committed in the order their embeddings complete, so the
// index's item order may differ from the input order.
func (d *LocalDocumentIndex) UpsertDocuments(ctx context.Context, docs []DocumentInput, opts *UpsertDocumentsOptions) ([]*LocalDocument, error) {
	return d.upsertDocuments(ctx, "upsert documents", d.FolderPath(), docs, opts)
}

// upsertDocuments is UpsertDocuments, its errors naming op and key.
func (d *LocalDocumentIndex) upsertDocuments(ctx context.Context, op, key string, docs []DocumentInput, opts *UpsertDocumentsOptions) ([]*LocalDocument, error) {
	var o UpsertDocumentsOptions
	if opts != nil {
		o = *opts
	}
	if o.Concurrency < 0 || o.BatchSize < 0 {
		return nil, WrapOp(ctx, op, key, fmt.Errorf("concurrency %d, batch size %d: %w", o.Concurrency, o.BatchSize, ErrInvalidArgument))
	}
	if o.Concurrency == 0 {
		o.Concurrency = defaultUpsertConcurrency
	}
	if o.BatchSize == 0 {
		o.BatchSize = defaultUpsertBatchSize
	}
	if o.CommitInterval == 0 {
		o.CommitInterval = defaultUpsertCommitInterval
	}
	if d.embeddings == nil {
		return nil, WrapOp(ctx, op, key, d.noModel())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	run := &bulkUpsert{d: d, opts: o, docs: make([]bulkDoc, len(docs)), out: make([]*LocalDocument, len(docs))}
	run.progress.Total = len(docs)
	last := make(map[string]int, len(docs))
	for i, in := range docs {
		md, hash, err := cleanDocument(in.Text, in.DocType, in.Metadata)
		if err != nil {
			return nil, WrapOp(ctx, op, in.URI, err)
		}
		run.docs[i] = bulkDoc{in: in, md: md, hash: hash}
		last[in.URI] = i
	}
	committed, err := d.catalog(ctx, op, key)
	if err != nil {
		return nil, err
	}
	// Unchanged documents are judged against the open batch too, when
	// there is one.
	var todo []int
	err = d.locked(ctx, func() error {
		todo = run.unchanged(d.viewLocked(committed), o.Force, last)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = run.run(ctx, todo)
	for i, doc := range run.docs {
		if doc.superseded >= 0 {
			run.out[i] = run.out[doc.superseded]
		}
	}
	run.report()
	if err != nil {
		return run.out, WrapOp(ctx, op, key, err)
	}
	return run.out, nil
}

// bulkUpsert is one UpsertDocuments call.
type bulkUpsert struct {
	d        *LocalDocumentIndex
	opts     UpsertDocumentsOptions
	docs     []bulkDoc
	out      []*LocalDocument
	progress UpsertProgress // owned by the committing goroutine
}

// bulkDoc is one input document and its work.
type bulkDoc struct {
	in         DocumentInput
	md         Metadata
	hash       string
	superseded int         // index of the later input with the same URI, or -1
	chunks     []TextChunk // set by the split, read once the document is ready
	vectors    [][]float32
}

// run embeds the documents todo (embedpipe.Run splits them and packs
// their chunks into shared requests) and commits them in batches as they
// become ready, reporting progress, from this goroutine.
func (r *bulkUpsert) run(parent context.Context, todo []int) error {
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	events := embedpipe.Run(ctx, embedpipe.Config{
		Concurrency: r.opts.Concurrency,
		MaxTokens:   r.d.embeddings.MaxTokens(),
		Split: func(ctx context.Context, i int) (embedpipe.Doc, error) {
			doc := &r.docs[i]
			chunks, err := r.d.split(ctx, doc.in.URI, doc.in.Text, doc.in.DocType)
			if err != nil {
				return embedpipe.Doc{}, fmt.Errorf("document %q: %w", doc.in.URI, err)
			}
			doc.chunks = chunks
			out := embedpipe.Doc{Texts: make([]string, len(chunks)), Tokens: make([]int, len(chunks))}
			ctxs := r.d.chunkContexts(doc.in.URI, doc.in.Text, chunks)
			for j, c := range chunks {
				out.Texts[j], out.Tokens[j] = ctxs[j].text+c.Text, ctxs[j].tokens+len(c.Tokens)
			}
			return out, nil
		},
		Embed: r.d.embed,
	}, todo)

	var ready []int
	readyChunks, lastCommit := 0, time.Now()
	// due reports whether the ready documents make a commit: BatchSize of
	// them, and chunks worth rewriting the index for (see BatchSize).
	due := func() bool {
		switch {
		case len(ready) < r.opts.BatchSize:
			return false
		case r.opts.CommitInterval < 0, readyChunks >= maxPendingChunks:
			return true
		case time.Since(lastCommit) >= r.opts.CommitInterval:
			return true
		}
		// A commit rewrites the items and the catalog: what is ready
		// must be a quarter of what is stored, counting documents as well
		// as chunks, so that documents without chunks (empty files) wait
		// too.
		stored := 0
		if s := r.d.cur.Load(); s != nil {
			stored = s.count()
		}
		if c := r.d.cat.Load(); c != nil {
			stored += len(c.URIToID)
		}
		return readyChunks+len(ready) >= stored/4
	}
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for e := range events {
		switch {
		case e.Err != nil:
			fail(e.Err)
		case firstErr != nil:
		case e.Call:
			r.progress.EmbeddingsCalls++
			r.progress.Chunks += e.Chunks
			r.report()
		case e.Doc >= 0:
			ready = append(ready, e.Doc)
			r.docs[e.Doc].vectors = e.Vectors
			readyChunks += len(r.docs[e.Doc].chunks)
			if due() && parent.Err() == nil {
				if err := r.commit(ctx, ready); err != nil {
					fail(err)
				}
				ready, readyChunks, lastCommit = ready[:0], 0, time.Now()
			}
		}
	}
	if err := parent.Err(); err != nil {
		return err // documents not committed yet stay out
	}
	if firstErr == nil && len(ready) > 0 {
		if err := r.commit(ctx, ready); err != nil {
			fail(err)
		}
	}
	return firstErr
}

// commit stores the ready documents in one commit of their own and sets
// their results.
func (r *bulkUpsert) commit(ctx context.Context, ready []int) error {
	d := r.d
	ids := make([]string, len(ready))
	for k := range ready {
		ids[k] = uuid.New() // chosen once: a rebase applies the same versions again
	}
	// Inside the caller's batch (BeginUpdate) the documents join it and
	// are committed with it; otherwise they get a commit of their own.
	changes := make([]func(chunkEdits, *docPending) error, len(ready))
	for k, i := range ready {
		doc := &r.docs[i]
		u := upsert{uri: doc.in.URI, id: ids[k], text: doc.in.Text, md: doc.md, hash: doc.hash, chunks: doc.chunks, vectors: doc.vectors}
		changes[k] = func(e chunkEdits, p *docPending) error {
			if err := d.applyUpsert(ctx, e, p, u); err != nil {
				return fmt.Errorf("document %q: %w", u.uri, err)
			}
			return nil
		}
	}
	err := d.writeDocument(ctx, changes...)
	if err != nil {
		return err
	}
	for k, i := range ready {
		doc := &r.docs[i]
		r.out[i] = d.document(ids[k], doc.in.URI)
		doc.chunks, doc.vectors = nil, nil
	}
	r.progress.Documents += len(ready)
	r.report()
	return nil
}

func (r *bulkUpsert) report() {
	if r.opts.Progress != nil {
		r.opts.Progress(r.progress)
	}
}

// unchanged marks the documents to skip, judged against view (the
// committed catalog, or the open batch's): a URI given again later in the
// run (superseded), or, unless force, one whose stored hash matches. It
// returns the others, to store. The writer lock is held.
func (r *bulkUpsert) unchanged(view *DocumentCatalog, force bool, last map[string]int) []int {
	var todo []int
	for i := range r.docs {
		doc := &r.docs[i]
		if last[doc.in.URI] != i {
			doc.superseded = last[doc.in.URI]
			r.progress.Skipped++
			r.progress.Documents++
			continue
		}
		doc.superseded = -1
		if id, known := view.URIToID[doc.in.URI]; known && !force &&
			view.URIToHash != nil && view.URIToHash[doc.in.URI] == doc.hash {
			r.out[i] = r.d.document(id, doc.in.URI)
			r.progress.Skipped++
			r.progress.Documents++
			continue
		}
		todo = append(todo, i)
	}
	return todo
}

// chunkContext is the line a chunk is embedded after, and its tokens.
type chunkContext struct {
	text   string
	tokens int
}

// maxContextBytes bounds a chunk's context line: a title, a description
// and a heading path of a few words each.
const maxContextBytes = 240

// chunkContexts returns the context line of each chunk of the document
// text named uri: its title, its description and the headings above the
// chunk's start ("npm-link: Symlink a package folder > Synopsis"), none
// with ChunkingConfig.BareChunks.
func (d *LocalDocumentIndex) chunkContexts(uri, text string, chunks []TextChunk) []chunkContext {
	out := make([]chunkContext, len(chunks))
	if d.bare || len(chunks) == 0 {
		return out
	}
	f := docfields.Parse(text, uri)
	counted := map[string]int{}
	for j, c := range chunks {
		head := f.Title
		if f.Description != "" {
			head += ": " + f.Description
		}
		parts := []string{head}
		for _, h := range f.Path(c.StartPos) {
			if h != parts[len(parts)-1] && h != f.Title {
				parts = append(parts, h)
			}
		}
		line := strings.Join(parts, " > ")
		if len(line) > maxContextBytes {
			cut := strings.LastIndexByte(line[:maxContextBytes], ' ')
			line = line[:max(cut, 0)]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		line += "\n\n"
		n, ok := counted[line]
		if !ok {
			n = len(d.tokenizer.Encode(line))
			counted[line] = n
		}
		out[j] = chunkContext{text: line, tokens: n}
	}
	return out
}
