package embedonnx

import (
	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	"github.com/foliovec/folio/core"
)

var _ core.Tokenizer = (*TransformersTokenizer)(nil)

// TransformersTokenizer is a BERT WordPiece tokenizer read from a model
// folder (tokenizer.json and/or vocab.txt), giving the ids the model was
// trained with: wordpiece.Tokenizer, which builds for the browser too.
type TransformersTokenizer = wordpiece.Tokenizer

// NewTransformersTokenizer reads the tokenizer of the model folder
// modelFolder: tokenizer.json when present, else vocab.txt with
// tokenizer_config.json's settings.
func NewTransformersTokenizer(modelFolder string) (*TransformersTokenizer, error) {
	return wordpiece.Load(modelFolder)
}

// Pooling turns a sequence's per-token hidden states into one vector.
type Pooling = wordpiece.Pooling

// Poolings, as Vectra names them.
const (
	// PoolingMean averages the hidden states of the real tokens ([CLS] and
	// [SEP] included, padding excluded), as sentence-transformers does.
	PoolingMean = wordpiece.PoolingMean
	// PoolingCLS takes the hidden state of the first token ([CLS]).
	PoolingCLS = wordpiece.PoolingCLS
)
