package embedonnx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
	"github.com/foliovec/folio/core"
)

func TestModelLookup(t *testing.T) {
	// A models folder holding one model under an id with an owner.
	models := t.TempDir()
	w := bertgen.NewWeights(bertgen.Tiny(len(bertgen.TinyVocab())))
	if err := bertgen.WriteFolder(filepath.Join(models, "acme", "mini"), w,
		bertgen.Folder{Vocab: bertgen.TinyVocab(), TokenizerJSON: true}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(models, "acme", "mini")

	t.Run("a folder path is used as it is", func(t *testing.T) {
		got, err := resolve(t, want, "")
		if err != nil || got != want {
			t.Fatalf("resolveModel = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("an id is looked up under the ModelsDir option", func(t *testing.T) {
		t.Setenv(ModelsDirEnv, t.TempDir()) // the option wins over it
		got, err := resolve(t, "acme/mini", models)
		if err != nil || got != want {
			t.Fatalf("resolveModel = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("then under $FOLIO_MODELS_DIR", func(t *testing.T) {
		t.Setenv(ModelsDirEnv, models)
		got, err := resolve(t, "acme/mini", "")
		if err != nil || got != want {
			t.Fatalf("resolveModel = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("then under the user cache folder", func(t *testing.T) {
		t.Setenv(ModelsDirEnv, "")
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
		t.Setenv("HOME", cache)           // and on macOS, under Library/Caches
		userCache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		folder := filepath.Join(userCache, "folio", "models", "acme", "mini")
		if err := os.CopyFS(folder, os.DirFS(want)); err != nil {
			t.Fatal(err)
		}
		got, err := resolve(t, "acme/mini", "")
		if err != nil || got != folder {
			t.Fatalf("resolveModel = %q, %v; want %q", got, err, folder)
		}
	})
	t.Run("the default model is looked up when none is named", func(t *testing.T) {
		_, err := resolve(t, "", models)
		if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), filepath.Join(models, "Xenova", "all-MiniLM-L6-v2")) {
			t.Fatalf("err = %v, want ErrModelNotFound naming the default model's folder", err)
		}
	})
	t.Run("a missing id, offline, names the model and the folder searched", func(t *testing.T) {
		_, err := resolve(t, "acme/absent", models)
		if !errors.Is(err, ErrModelNotFound) || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want ErrModelNotFound", err)
		}
		for _, part := range []string{filepath.Join(models, "acme", "absent"), "acme/absent", "the network is off"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q lacks %q", err, part)
			}
		}
	})
	t.Run("a missing folder path is not found", func(t *testing.T) {
		if _, err := resolve(t, filepath.Join(models, "nope"), ""); !errors.Is(err, ErrModelNotFound) {
			t.Fatalf("err = %v, want ErrModelNotFound", err)
		}
	})
	t.Run("an id cannot leave the models folder", func(t *testing.T) {
		for _, id := range []string{"acme/../../etc", "a/../../b"} {
			if _, err := resolve(t, id, models); !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("resolveModel(%q): %v, want ErrInvalidArgument", id, err)
			}
		}
	})
	t.Run("a folder without a model file says which files it looked for", func(t *testing.T) {
		empty := t.TempDir()
		_, err := findModelFile(empty, "")
		if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "onnx/model.onnx, model.onnx") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestModelFileNames(t *testing.T) {
	for _, tc := range []struct {
		dtype Dtype
		first string
	}{
		{"", "model.onnx"}, {DtypeFP32, "model.onnx"}, {DtypeFP16, "model_fp16.onnx"},
		{DtypeQ8, "model_quantized.onnx"}, {DtypeQ4, "model_q4.onnx"},
	} {
		names, err := modelFileNames(tc.dtype)
		if err != nil || names[0] != tc.first {
			t.Errorf("dtype %q: %v, %v; want %s first", tc.dtype, names, err, tc.first)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "model_int8.onnx"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := findModelFile(dir, DtypeQ8); err != nil || filepath.Base(got) != "model_int8.onnx" {
		t.Errorf("q8 with only model_int8.onnx: %q, %v", got, err)
	}
}

// resolve is resolveModel offline: nothing in these tests reaches a hub.
func resolve(t *testing.T, model, modelsDir string) (string, error) {
	return resolveModel(t.Context(), modelSpec{model: model, modelsDir: modelsDir, hub: hub.Options{Offline: true}})
}
