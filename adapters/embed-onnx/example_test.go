package embedonnx_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

// modelFolder stands in for a real model folder (such as a download of
// Xenova/all-MiniLM-L6-v2): it writes a tiny random BERT model with a
// 32-dimensional output. It returns the folder and a cleanup function.
func modelFolder() (string, func()) {
	tmp, err := os.MkdirTemp("", "embedonnx-example")
	if err != nil {
		log.Fatal(err)
	}
	dir := filepath.Join(tmp, "model")
	w := bertgen.NewWeights(bertgen.Tiny(len(bertgen.TinyVocab())))
	if err := bertgen.WriteFolder(dir, w, bertgen.Folder{Vocab: bertgen.TinyVocab(), TokenizerJSON: true, Uncased: true}); err != nil {
		log.Fatal(err)
	}
	return dir, func() { os.RemoveAll(tmp) }
}

func ExampleCreateTransformersEmbeddings() {
	dir, cleanup := modelFolder()
	defer cleanup()
	ctx := context.Background()

	// Model is a folder path, or an id under $FOLIO_MODELS_DIR.
	m, err := embedonnx.CreateTransformersEmbeddings(ctx, &embedonnx.TransformersOptions{
		Model:   dir,
		Device:  embedonnx.DeviceCPU,
		Pooling: embedonnx.PoolingMean,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	resp, err := m.CreateEmbeddings(ctx, []string{"hello world", "the quick brown fox"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status, len(resp.Output), len(resp.Output[0]), m.MaxTokens())
	// Output: success 2 32 512
}

func ExampleNewLocalEmbeddings() {
	dir, cleanup := modelFolder()
	defer cleanup()

	// Nothing loads until the first call.
	m := embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: dir})
	defer m.Close()

	resp, err := m.CreateEmbeddings(context.Background(), []string{"hello world"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status, len(resp.Output[0]), m.MaxTokens())
	// Output: success 32 256
}

func ExampleNewTransformersTokenizer() {
	dir, cleanup := modelFolder()
	defer cleanup()

	tok, err := embedonnx.NewTransformersTokenizer(dir)
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("Hello, Café world!")
	fmt.Println(len(ids), tok.Decode(ids))
	// Output: 7 hello, cafe world!
}
