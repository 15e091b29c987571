// Command tinymodel writes a tiny BERT-shaped ONNX model folder (random
// weights, a 32-dimensional output, an uncased WordPiece tokenizer.json) to
// the folder given as its argument. Tests of programs outside package
// embedonnx, such as the folio command's --model, use it as a stand-in for a
// downloaded sentence model.
//
//	go run github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen/tinymodel DIR
package main

import (
	"fmt"
	"os"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tinymodel DIR")
		os.Exit(2)
	}
	vocab := bertgen.TinyVocab()
	w := bertgen.NewWeights(bertgen.Tiny(len(vocab)))
	if err := bertgen.WriteFolder(os.Args[1], w, bertgen.Folder{Vocab: vocab, TokenizerJSON: true, Uncased: true}); err != nil {
		fmt.Fprintln(os.Stderr, "tinymodel:", err)
		os.Exit(1)
	}
}
