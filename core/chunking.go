package core

// ChunkingConfig is how a document index splits its documents. Every zero
// field means its default, the way Vectra 0.15 merges a partial chunking
// config into its document defaults: ChunkingConfig{ChunkSize: 256} keeps
// separators, as Vectra's {chunkSize: 256} does.
type ChunkingConfig struct {
	// ChunkSize is the most tokens a chunk holds; 0 means 512.
	ChunkSize int
	// ChunkOverlap is the tokens each chunk shares with the next (as
	// StartOverlap and EndOverlap); 0 means none, the document default.
	ChunkOverlap int
	// DropSeparators drops the separators a document is split at from the
	// chunks' texts. A document index keeps them by default (Vectra's
	// keepSeparators: true), so the field says the opposite and its zero
	// value is the default.
	DropSeparators bool
	// Separators replaces the separators of the document's type, most
	// significant first; nil means those of the type.
	Separators []string
	// DocType, when set, is the type of every document, whatever
	// UpsertDocument is given (as in Vectra).
	DocType string
	// Tokenizer counts and cuts tokens; nil means the document index's
	// Tokenizer.
	Tokenizer Tokenizer
	// VectraChunking splits documents into exactly the chunks Vectra 0.15
	// makes (see TextSplitterConfig.VectraChunking).
	VectraChunking bool
}

// TextSplitterConfig is the splitter configuration c means: its fields,
// with the document defaults for those left zero.
func (c ChunkingConfig) TextSplitterConfig() TextSplitterConfig {
	cfg := DefaultDocumentChunkingConfig()
	if c.ChunkSize != 0 {
		cfg.ChunkSize = c.ChunkSize
	}
	cfg.ChunkOverlap = c.ChunkOverlap
	cfg.KeepSeparators = !c.DropSeparators
	cfg.Separators = c.Separators
	cfg.DocType = c.DocType
	cfg.Tokenizer = c.Tokenizer
	cfg.VectraChunking = c.VectraChunking
	return cfg
}
