package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// modelFile is the file of Folio's own, in an index folder, that names
// the embeddings model the index was built with. It never holds a secret;
// Vectra ignores it.
const modelFile = ".folio-model.json"

// modelRecord is the content of modelFile.
type modelRecord struct {
	// Kind is "hash", "hosted" or "onnx".
	Kind string `json:"kind"`
	// Name identifies the model within its kind: the dimensions of the
	// hash model, the hosted variant and model ("openai:<model>",
	// "azure:<endpoint>/<deployment>", "oss:<endpoint>/<model>"), or the
	// ONNX model folder or hub id (with "@revision" when one was named).
	Name string `json:"name"`
	// Commit is the hub commit of an ONNX model fetched by id, as it was
	// when the index was built; it is a record only, not compared.
	Commit string `json:"commit,omitempty"`
}

func (r modelRecord) String() string { return r.Kind + " " + r.Name }

// same reports whether two records name one model.
func (r modelRecord) same(o modelRecord) bool { return r.Kind == o.Kind && r.Name == o.Name }

// modelFlags are the three ways to name an embeddings model.
type modelFlags struct {
	keys     string
	model    string
	hashDims int
}

func (m *modelFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&m.keys, "keys", "k", "", "JSON keys file of a hosted embeddings model (OpenAI, Azure/cloud, or OpenAI-compatible oss…)")
	f.StringVar(&m.model, "model", "", "local ONNX model: a model folder, or a Hugging Face id (owner/name[@revision]) fetched once into $FOLIO_MODELS_DIR")
	f.IntVar(&m.hashDims, "hash-dims", 0, "offline word-hashing model of this many dimensions (not semantic; nothing to install)")
}

// given reports how many of the flags are set; more than one is a usage
// error.
func (m *modelFlags) check() error {
	n := 0
	for _, set := range []bool{m.keys != "", m.model != "", m.hashDims != 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("--keys, --model and --hash-dims name a model each: give at most one")
	}
	if m.hashDims < 0 {
		return usagef("--hash-dims %d: want a positive number", m.hashDims)
	}
	return nil
}

// resolve returns the embeddings model for the index in folder (a model
// named by hub id is fetched first, unless it is in place, reporting on
// a's stderr): the one
// the flags name, which must be the one the index was built with if it
// remembers one, else the remembered one. With neither, the model is nil
// and rec is zero. It never writes.
func (m *modelFlags) resolve(ctx context.Context, a *app, storage core.FileStorage, folder string) (core.EmbeddingsModel, modelRecord, error) {
	if err := m.check(); err != nil {
		return nil, modelRecord{}, err
	}
	var stored modelRecord
	var hasStored bool
	if folder != "" {
		var err error
		if stored, hasStored, err = readModelRecord(ctx, storage, folder); err != nil {
			return nil, modelRecord{}, err
		}
	}
	var err error
	var model core.EmbeddingsModel
	var rec modelRecord
	switch {
	case m.hashDims > 0:
		rec = modelRecord{Kind: "hash", Name: fmt.Sprint(m.hashDims)}
		model = embedhash.New(&embedhash.Options{Dimensions: m.hashDims})
	case m.keys != "":
		var opts embedhosted.Options
		if opts, rec, err = readKeysFile(m.keys); err != nil {
			return nil, modelRecord{}, err
		}
		if a.transport != nil && opts.HTTPClient == nil {
			opts.HTTPClient = &http.Client{Transport: a.transport}
		}
		if model, err = embedhosted.New(&opts); err != nil {
			return nil, modelRecord{}, fmt.Errorf("keys file %s: %w", m.keys, err)
		}
	case m.model != "":
		name := m.model
		// A model folder is remembered by its absolute path, so later
		// commands find it from any working directory; an id stays an id.
		if isDir(name) {
			if name, err = filepath.Abs(name); err != nil {
				return nil, modelRecord{}, err
			}
		}
		rec = modelRecord{Kind: "onnx", Name: name}
		if model, rec.Commit, err = a.localModel(ctx, name); err != nil {
			return nil, modelRecord{}, err
		}
	case hasStored:
		return a.modelFromRecord(ctx, stored)
	default:
		return nil, modelRecord{}, nil
	}
	if hasStored && !stored.same(rec) {
		return nil, modelRecord{}, fmt.Errorf("index %s was built with the %s model, not the %s model the flags name: vectors of different models must not be mixed", folder, stored, rec)
	}
	return model, rec, nil
}

// modelFromRecord makes the model a record names, where that needs no
// secret.
func (a *app) modelFromRecord(ctx context.Context, rec modelRecord) (core.EmbeddingsModel, modelRecord, error) {
	switch rec.Kind {
	case "hash":
		var dims int
		if _, err := fmt.Sscan(rec.Name, &dims); err != nil || dims <= 0 {
			return nil, modelRecord{}, fmt.Errorf("model file names hash model %q: not a dimension count", rec.Name)
		}
		return embedhash.New(&embedhash.Options{Dimensions: dims}), rec, nil
	case "onnx":
		model, _, err := a.localModel(ctx, rec.Name)
		return model, rec, err
	case "hosted":
		return nil, modelRecord{}, usagef("the index was built with the hosted %s model: pass its keys file with --keys", rec.Name)
	}
	return nil, modelRecord{}, fmt.Errorf("model file names an unknown kind of model %q", rec.Kind)
}

// requireModel is resolve for commands that embed: no model is an error.
func (m *modelFlags) requireModel(ctx context.Context, a *app, storage core.FileStorage, folder string) (core.EmbeddingsModel, modelRecord, error) {
	model, rec, err := m.resolve(ctx, a, storage, folder)
	if err == nil && model == nil {
		err = usagef("index %s has no model yet: name one with --keys FILE, --model DIR|ID or --hash-dims N", folder)
	}
	return model, rec, err
}

func readModelRecord(ctx context.Context, storage core.FileStorage, folder string) (modelRecord, bool, error) {
	raw, err := storage.ReadFile(ctx, pathutil.Join(folder, modelFile))
	if errors.Is(err, fs.ErrNotExist) {
		return modelRecord{}, false, nil
	}
	if err != nil {
		return modelRecord{}, false, err
	}
	var rec modelRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return modelRecord{}, false, fmt.Errorf("model file %s: %w", pathutil.Join(folder, modelFile), err)
	}
	return rec, true, nil
}

// rememberModel writes rec as the index's model, unless the index has one.
func rememberModel(ctx context.Context, storage core.FileStorage, folder string, rec modelRecord) error {
	raw, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	err = storage.CreateFile(ctx, pathutil.Join(folder, modelFile), append(raw, '\n'))
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// readKeysFile reads a keys file (embedhosted.OptionsFromKeysJSON: Vectra's
// shapes and defaults) into hosted options and the record of the model it
// names (no key in it).
func readKeysFile(path string) (embedhosted.Options, modelRecord, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return embedhosted.Options{}, modelRecord{}, fmt.Errorf("keys file: %w", err)
	}
	opts, err := embedhosted.OptionsFromKeysJSON(raw)
	if err != nil {
		return embedhosted.Options{}, modelRecord{}, fmt.Errorf("keys file %s: %w", path, err)
	}
	var rec modelRecord
	switch {
	case opts.OSSModel != "" || opts.OSSEndpoint != "":
		rec = modelRecord{Kind: "hosted", Name: "oss:" + strings.TrimRight(opts.OSSEndpoint, "/") + "/" + opts.OSSModel}
	case opts.CloudAPIKey != "" || opts.CloudEndpoint != "":
		rec = modelRecord{Kind: "hosted", Name: "azure:" + strings.TrimRight(opts.CloudEndpoint, "/") + "/" + opts.CloudDeployment}
	default:
		rec = modelRecord{Kind: "hosted", Name: "openai:" + opts.Model}
	}
	return opts, rec, nil
}

// absFolder is the folder as a storage path: on local storage without a
// root, an absolute path, so that messages name it unambiguously.
func (a *app) folderPath(index string) string {
	if a.storageKind == "local" && a.storageRoot == "" {
		if abs, err := filepath.Abs(index); err == nil {
			return abs
		}
	}
	return index
}
