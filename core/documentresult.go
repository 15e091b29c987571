package core

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/core/internal/docfields"
	"github.com/foliovec/folio/core/internal/meta"
	"github.com/foliovec/folio/core/internal/render"
)

// LocalDocumentResult is a document found by QueryDocuments or listed by
// ListDocuments, with the chunks that matched.
//
// Chunks are the matching chunk items with their scores, best first as the
// query returned them; keyword matches of a hybrid query follow the vector
// matches and carry "isBm25": true in their metadata. Score is the mean of
// the chunk scores (0 with none), BM25 scores included, as in Vectra.
//
// The render methods read the document's text once (see LocalDocument) and
// cut chunks out of it by their startPos and endPos, inclusive UTF-16
// offsets. They are safe for concurrent use as long as Chunks is not
// modified meanwhile.
type LocalDocumentResult struct {
	*LocalDocument
	Chunks []QueryResult
	Score  float64

	query string // the query that found it; "" for a listed document
}

// newLocalDocumentResult returns doc with its matching chunks.
func newLocalDocumentResult(doc *LocalDocument, chunks []QueryResult) *LocalDocumentResult {
	scores := make([]float64, len(chunks))
	for i, c := range chunks {
		scores[i] = c.Score
	}
	return &LocalDocumentResult{LocalDocument: doc, Chunks: chunks, Score: render.Mean(scores)}
}

// ChunkTexts returns the text of each of the result's chunks, in the order
// of Chunks, cut out of the document's text by the span ChunkSpan reads
// ("" for a chunk without one). The folio command and the gRPC server show
// chunks through it.
func (r *LocalDocumentResult) ChunkTexts(ctx context.Context) ([]string, error) {
	t, err := r.loadText(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(r.Chunks))
	for i, c := range r.Chunks {
		if start, end, ok := meta.Positions(c.Item.Metadata); ok {
			out[i] = t.Substring(start, end+1)
		}
	}
	return out, nil
}

func (r *LocalDocumentResult) renderer(ctx context.Context) (*render.Renderer, *render.Text, error) {
	t, err := r.loadText(ctx)
	if err != nil {
		return nil, nil, err
	}
	return render.New(t, r.tokenizer), t, nil
}

// RenderAllSections renders every chunk, in document order, packed into
// sections of at most maxTokens tokens (Vectra's renderAllSections): chunks
// are added to a section while they fit, their tokens simply concatenated
// (no connector, even over a gap); a chunk longer than maxTokens is cut
// into maxTokens-token sections of its own. A packed section's score is the
// mean of its chunks' scores; it is BM25 only when all of its chunks are.
// maxTokens below 1 is ErrInvalidArgument.
func (r *LocalDocumentResult) RenderAllSections(ctx context.Context, maxTokens int) ([]DocumentTextSection, error) {
	if maxTokens < 1 {
		return nil, fmt.Errorf("render all sections of document %q: maxTokens %d is below 1: %w", r.uri, maxTokens, ErrInvalidArgument)
	}
	rd, _, err := r.renderer(ctx)
	if err != nil {
		return nil, err
	}
	return sections(rd.All(renderChunks(r.Chunks), maxTokens)), nil
}

// RenderOptions are the options of Render.
type RenderOptions struct {
	// MaxTokens is the token budget of each section; 0 means
	// DefaultRenderTokens, or DefaultVectraRenderTokens with
	// VectraSections.
	MaxTokens int
	// MaxSections is the most sections rendered; 0 means 1, Vectra's
	// default.
	MaxSections int
	// VectraSections renders Vectra's sections (RenderSections: chunks
	// gathered around heat-map peaks, joined by Connector) instead of
	// passages.
	VectraSections bool
	// NoOverlap, with VectraSections, renders chunks without the tokens
	// they overlap with their neighbours; by default they overlap, as
	// Vectra's overlappingChunks defaults to true. Passages ignore it.
	NoOverlap bool
	// LinePassages renders the passages Folio rendered before it chose
	// them by the document's structure: each grown by lines from the
	// lines of a matching chunk that best match the query's words (see
	// Render).
	LinePassages bool
}

// DefaultRenderTokens is RenderOptions.MaxTokens when it is 0: a passage
// of about 30 lines, which a terminal shows whole.
const DefaultRenderTokens = 400

// DefaultVectraRenderTokens is RenderOptions.MaxTokens when it is 0 and
// VectraSections is set: Vectra's default budget.
const DefaultVectraRenderTokens = 2000

// Render renders the document's best passages, by default Folio's way,
// chosen by the document's structure:
//
//   - The text is cut into blocks never split (a heading, a fenced code
//     block whole, a paragraph with the lines indented under it, such as a
//     reStructuredText directive's body), and into sections: the blocks
//     under one heading, in Markdown, reStructuredText or HTML. A passage is
//     a section, or in a section longer than MaxTokens the run of its blocks
//     that fits; it starts and ends at whole lines, never inside a code
//     block (unless one block alone is longer than MaxTokens: then its
//     first lines that fit).
//   - Each is scored by the query's meaning (the best score of the
//     query's chunks that lie in it, against the document's best), its
//     words (each query word weighed by how rare it is among the
//     document's lines) and its headings' words, and a little by its
//     place (a page's synopsis and description come first). The best grows
//     by whole sections around it, the one before first, while they fit:
//     a description's usage line comes with it.
//   - A passage's score is its own: the best score of the query's chunks
//     that lie in it, on the document's scale (with rank fusion, the best
//     chunk's score is the document's); IsBm25 says that chunk came from
//     the keyword search; Headings are the headings above its first line.
//   - A document that fits in MaxTokens is one passage, the whole text.
//     Passages do not overlap.
//
// With opts.LinePassages it renders the line-based passages Folio rendered
// before: each starts from the three lines of a matching chunk that best
// match the query's words, each chunk's lines weighed by its rank i as
// 60/(60+i), and grows by whole lines on both sides while they fit, up to
// a Markdown heading and no further; its score is its chunk's. With
// opts.VectraSections it is RenderSections, Vectra's rendering.
// MaxTokens or MaxSections below 0 is ErrInvalidArgument; opts nil means
// every default.
func (r *LocalDocumentResult) Render(ctx context.Context, opts *RenderOptions) ([]DocumentTextSection, error) {
	var o RenderOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxTokens < 0 || o.MaxSections < 0 {
		return nil, fmt.Errorf("render document %q: maxTokens %d, maxSections %d: %w", r.uri, o.MaxTokens, o.MaxSections, ErrInvalidArgument)
	}
	if o.MaxSections == 0 {
		o.MaxSections = 1
	}
	if o.VectraSections {
		if o.MaxTokens == 0 {
			o.MaxTokens = DefaultVectraRenderTokens
		}
		return r.RenderSections(ctx, o.MaxTokens, o.MaxSections, !o.NoOverlap)
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultRenderTokens
	}
	rd, text, err := r.renderer(ctx)
	if err != nil {
		return nil, err
	}
	fields := docfields.Parse(text.String(), r.uri)
	if o.LinePassages {
		return sections(rd.Passages(renderChunks(r.Chunks), r.query, o.MaxTokens, o.MaxSections)), nil
	}
	return sections(rd.Structured(renderChunks(r.Chunks), r.query, fields, o.MaxTokens, o.MaxSections)), nil
}

// RenderSections renders the best passages of the document, each of at
// most maxTokens tokens, exactly as Vectra's renderSections does, but for
// the fallback fix below:
//
//   - A document of at most maxTokens tokens (GetLength, so estimated above
//     40,000 UTF-16 units) is one section: its whole text, score 1.
//   - Otherwise vector and keyword (BM25) chunks are rendered separately,
//     at most maxSections sections each, vector sections first.
//   - For each list, the chunk scores are summed per position into a heat
//     map; its peaks (runs of heat from 0.1 up, a new peak after any
//     position below 0.1) are ranked by heat, and the maxSections hottest
//     each gather the chunks whose centre is nearest to them. A peak's
//     section takes its chunks nearest first while they fit in maxTokens,
//     counting the Connector's tokens for a chunk adjacent to none taken
//     when overlappingChunks is set, and skipping chunks longer than
//     maxTokens.
//   - The chosen chunks are joined in document order; with
//     overlappingChunks, gaps between them get the Connector, and a section
//     with more than 40 tokens to spare grows with the tokens just before
//     (up to half the spare, rounded up) and just after it.
//   - A section's score is the mean of its chunks' scores; its TokenCount
//     is the number of tokens of its parts.
//   - When a peak gets no chunk, or there is no peak to render, the list
//     renders as one fallback section: the first maxTokens tokens of its
//     top-scoring chunk. Fix over Vectra: that section's TokenCount is its
//     real token count, not maxTokens.
//
// The heat map is computed over runs of positions covered by the same
// chunks, so time and memory grow with the number of chunks, not with their
// length. maxTokens below 1 or maxSections below 0 is ErrInvalidArgument.
func (r *LocalDocumentResult) RenderSections(ctx context.Context, maxTokens, maxSections int, overlappingChunks bool) ([]DocumentTextSection, error) {
	if maxTokens < 1 || maxSections < 0 {
		return nil, fmt.Errorf("render sections of document %q: maxTokens %d, maxSections %d: %w", r.uri, maxTokens, maxSections, ErrInvalidArgument)
	}
	length, err := r.GetLength(ctx)
	if err != nil {
		return nil, err
	}
	rd, text, err := r.renderer(ctx)
	if err != nil {
		return nil, err
	}
	if length <= maxTokens {
		return []DocumentTextSection{{Text: text.String(), TokenCount: length, Score: 1}}, nil
	}
	return sections(rd.Best(renderChunks(r.Chunks), maxTokens, maxSections, overlappingChunks)), nil
}

// ChunkSpan returns the document id and the inclusive UTF-16 start and end
// offsets into its text of a document chunk item, from the item's inline
// metadata (documentId, startPos, endPos). Values are read as Vectra reads
// them, by JavaScript's String() and Number(): a position may be a number
// or a string ("0x10" is 16, "0b11" is 3, "" is 0, " 12 " is 12), a
// fraction is truncated. ok is false when a key is missing or nil, or a
// position is not a finite number of at most 2^40. Rendering, keyword
// search, the folio command and the gRPC server all read spans through it.
func ChunkSpan(md Metadata) (documentID string, start, end int, ok bool) {
	return meta.Span(md)
}

// Connector joins the non-adjacent chunks of a rendered section.
const Connector = "\n\n...\n\n"

// DocumentTextSection is a rendered passage of a document.
type DocumentTextSection struct {
	Text       string
	TokenCount int
	Score      float64
	IsBm25     bool
	// Headings are the headings above the passage's first line, outermost
	// first, joined by HeadingSeparator (Render's passages; "" for
	// Vectra's sections and where there is none).
	Headings string
}

// HeadingSeparator joins the headings of DocumentTextSection.Headings.
const HeadingSeparator = " > "

// renderChunks reads the spans and flags of the result chunks.
func renderChunks(chunks []QueryResult) []*render.Chunk {
	out := make([]*render.Chunk, len(chunks))
	for i, c := range chunks {
		s, e, ok := meta.Positions(c.Item.Metadata)
		out[i] = render.NewChunk(s, e, ok, c.Score, meta.IsBm25(c.Item.Metadata))
	}
	return out
}

// sections converts rendered sections to core's type.
func sections(in []render.Section) []DocumentTextSection {
	out := make([]DocumentTextSection, len(in))
	for i, s := range in {
		out[i] = DocumentTextSection(s)
	}
	return out
}
