package core

import (
	"github.com/foliovec/folio/core/internal/meta"
	"github.com/foliovec/folio/core/internal/render"
)

// Connector joins the non-adjacent chunks of a rendered section.
const Connector = "\n\n...\n\n"

// DocumentTextSection is a rendered passage of a document.
type DocumentTextSection struct {
	Text       string
	TokenCount int
	Score      float64
	IsBm25     bool
}

// renderChunks reads the spans and flags of the result chunks.
func renderChunks(chunks []QueryResult) []*render.Chunk {
	out := make([]*render.Chunk, len(chunks))
	for i, c := range chunks {
		s, e, ok := meta.Positions(c.Item.Metadata)
		out[i] = render.NewChunk(s, e, ok, c.Score, isBm25Chunk(c.Item.Metadata))
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

// isBm25Chunk reports whether a chunk came from the keyword search: its
// metadata's isBm25 is true, "true", 1 or "1" (as Vectra reads it).
func isBm25Chunk(md Metadata) bool {
	switch v := md["isBm25"].(type) {
	case bool:
		return v
	case string:
		return v == "true" || v == "1"
	case float64:
		return v == 1
	case int:
		return v == 1
	}
	return false
}
