package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	grpcserver "github.com/foliovec/folio/adapters/grpc"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// Fields of core.IndexOptions a surface sets itself, with the reason; any
// other field must reach every index the surface opens.
var (
	documentIndexSets = map[string]string{
		"DocReader": "a document index reads its documents' texts itself",
	}
	managerSets = map[string]string{
		"Codec":     "each folder's format decides its codec",
		"IndexName": "each folder's format decides its index file's name",
		"DocReader": "a document index reads its documents' texts itself (a plain index gets it)",
	}
)

// sampleOption is a value of field f unlike its zero value and unlike the
// defaults the surfaces fill in.
func sampleOption(t *testing.T, f reflect.StructField) reflect.Value {
	t.Helper()
	switch f.Type {
	case reflect.TypeFor[core.FileStorage]():
		return reflect.ValueOf(localStorage())
	case reflect.TypeFor[core.IndexCodec]():
		return reflect.ValueOf(codecpb.New())
	case reflect.TypeFor[*slog.Logger]():
		return reflect.ValueOf(slog.New(slog.DiscardHandler))
	case reflect.TypeFor[time.Duration]():
		return reflect.ValueOf(1234 * time.Millisecond)
	case reflect.TypeFor[core.KeywordScorer]():
		return reflect.ValueOf(core.KeywordScorer(&sampleScorer{}))
	case reflect.TypeFor[core.ScanCodes]():
		return reflect.ValueOf(core.CodesInt4)
	case reflect.TypeFor[*core.FieldWeights]():
		return reflect.ValueOf(&core.FieldWeights{Headings: 3, Title: 4, Name: 0.5})
	}
	switch f.Type.Kind() {
	case reflect.Bool:
		return reflect.ValueOf(true).Convert(f.Type)
	case reflect.Int:
		return reflect.ValueOf(7).Convert(f.Type)
	case reflect.Float64:
		return reflect.ValueOf(0.95).Convert(f.Type)
	case reflect.String:
		return reflect.ValueOf("custom.index").Convert(f.Type)
	case reflect.Func:
		return reflect.MakeFunc(f.Type, func([]reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.ValueOf(""), reflect.Zero(reflect.TypeFor[error]())}
		})
	}
	t.Fatalf("core.IndexOptions.%s: no sample value for type %v; add one here", f.Name, f.Type)
	return reflect.Value{}
}

// sampleScorer is a KeywordScorer to set, compared by identity.
type sampleScorer struct{ _ int }

func (*sampleScorer) ScoreKeywords(context.Context, string, []string) ([]float64, error) {
	return nil, nil
}

// same reports whether got holds want (the same value, or the same
// pointer, interface or function).
func same(got, want reflect.Value) bool {
	switch {
	case got.Kind() == reflect.Interface || want.Kind() == reflect.Interface:
		return got.Interface() == want.Interface()
	case want.Kind() == reflect.Pointer && want.Elem().Kind() == reflect.Struct:
		return !got.IsNil() && reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface())
	case want.Kind() == reflect.Func, want.Kind() == reflect.Pointer:
		return got.Pointer() == want.Pointer()
	}
	return reflect.DeepEqual(got.Interface(), want.Interface())
}

// Every field of core.IndexOptions can be set through every surface that
// opens indexes — the root facade's index and document index, the index
// manager, the gRPC server's configuration and the folio command's flags —
// or is listed, with its reason, as set by that surface itself. The fields
// are found by reflection, so a new option is checked without anyone
// remembering to.
func TestEveryIndexOptionReachesEverySurface(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// A plain index and a document index for the manager to open.
	plain, err := folio.NewLocalIndex(filepath.Join(root, "plain"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	docs, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(root, "docs")})
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}

	typ := reflect.TypeFor[core.IndexOptions]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		val := sampleOption(t, f)
		set := func(o *core.IndexOptions) { reflect.ValueOf(o).Elem().Field(i).Set(val) }
		check := func(surface string, ix *core.LocalIndex, exempt map[string]string) {
			t.Helper()
			if _, ok := exempt[f.Name]; ok {
				return
			}
			if got := reflect.ValueOf(ix.Options()).Field(i); !same(got, val) {
				t.Errorf("%s: IndexOptions.%s set to %v does not reach the index (it has %v)", surface, f.Name, val, got)
			}
		}

		// The root facade.
		var opts core.IndexOptions
		set(&opts)
		if f.Name != "IndexName" { // a custom index file name would be a new, empty index
			ix, err := folio.NewLocalIndex(filepath.Join(root, "plain"), &opts)
			if err != nil {
				t.Fatal(err)
			}
			check("folio.NewLocalIndex", ix, nil)
		}
		d, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(root, "docs"), IndexOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		check("folio.NewLocalDocumentIndex", d.LocalIndex, documentIndexSets)

		// The index manager and the server, over the same root.
		mcfg := manager.Config{
			RootDir:    root,
			Formats:    map[string]core.IndexCodec{manager.FormatJSON: codecjson.New(), manager.FormatProtobuf: codecpb.New()},
			Tokenizer:  tokenizertiktoken.New(),
			Embeddings: embedhash.New(nil),
			IndexOptions: core.IndexOptions{
				Storage: localStorage(),
			},
			ScanInterval: -1,
		}
		set(&mcfg.IndexOptions)
		m, err := manager.New(mcfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Initialize(ctx); err != nil {
			t.Fatal(err)
		}
		srv, err := grpcserver.New(&grpcserver.Options{Config: mcfg})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Manager().Initialize(ctx); err != nil {
			t.Fatal(err)
		}
		for name, mgr := range map[string]*manager.Manager{"manager.Manager": m, "grpcserver.Options": srv.Manager()} {
			served := mgr.ListIndexes()
			if len(served) != 2 {
				t.Fatalf("%s serves %d indexes, want 2", name, len(served))
			}
			for _, mi := range served {
				check(fmt.Sprintf("%s (%s)", name, mi.Name), mi.Index, managerSets)
			}
		}
		m.Shutdown()
		srv.Manager().Shutdown()

		// The folio command: a flag bound to the field, or a reason.
		flag, hasFlag := indexOptionFlags[f.Name]
		_, exempt := indexOptionsWithoutFlag[f.Name]
		switch {
		case hasFlag == exempt:
			t.Errorf("IndexOptions.%s: the folio command needs a flag for it (indexOptionFlags) or a reason (indexOptionsWithoutFlag), not both or neither", f.Name)
		case hasFlag:
			var flags indexFlags
			cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
			flags.register(cmd)
			arg := fmt.Sprintf("--%s=%v", flag, val.Interface())
			cmd.SetArgs([]string{arg})
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%s: %v", arg, err)
			}
			if got := reflect.ValueOf(flags.opts).Field(i); !same(got, val) {
				t.Errorf("%s sets IndexOptions.%s to %v, want %v", arg, f.Name, got, val)
			}
			for _, use := range []string{"query", "add", "watch", "serve"} {
				if !commandHasFlag(t, use, flag) {
					t.Errorf("folio %s has no --%s", use, flag)
				}
			}
		}
	}
}

// commandHasFlag reports whether folio's subcommand use has the flag.
func commandHasFlag(t *testing.T, use, flag string) bool {
	t.Helper()
	r := folioIn(t, t.TempDir(), use, "--help")
	return strings.Contains(r.stdout, "--"+flag)
}

// chunkingFlags names the flag of each field of core.ChunkingConfig that
// the commands that split documents (add, watch) have; the others say why
// they have none. A new field fails TestEveryChunkingOptionHasAFlag until
// it is in one of the two.
var (
	chunkingFlags = map[string]string{
		"ChunkSize":      "chunk-size",
		"VectraChunking": "vectra-chunking",
		"BareChunks":     "bare-chunks",
	}
	chunkingWithoutFlag = map[string]string{
		"ChunkOverlap":   "Vectra's CLI has none; a document index records no overlap by default",
		"DropSeparators": "Vectra's CLI keeps separators, as a document index does",
		"Separators":     "each file's separators come from its type, as in Vectra's CLI",
		"DocType":        "each file's type comes from its extension",
		"Tokenizer":      "the command tokenizes with o200k_base, as every index it opens",
	}
)

// Every field of core.ChunkingConfig has a flag on add and watch that sets
// it, or a reason not to.
func TestEveryChunkingOptionHasAFlag(t *testing.T) {
	typ := reflect.TypeFor[core.ChunkingConfig]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		flag, hasFlag := chunkingFlags[f.Name]
		_, exempt := chunkingWithoutFlag[f.Name]
		if hasFlag == exempt {
			t.Errorf("ChunkingConfig.%s: give it a flag (chunkingFlags) or a reason (chunkingWithoutFlag), not both or neither", f.Name)
			continue
		}
		if !hasFlag {
			continue
		}
		val := sampleOption(t, f)
		var c core.ChunkingConfig
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		registerChunking(cmd, &c)
		arg := fmt.Sprintf("--%s=%v", flag, val.Interface())
		cmd.SetArgs([]string{arg})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if got := reflect.ValueOf(c).Field(i); !same(got, val) {
			t.Errorf("%s sets ChunkingConfig.%s to %v, want %v", arg, f.Name, got, val)
		}
		for _, use := range []string{"add", "watch"} {
			if !commandHasFlag(t, use, flag) {
				t.Errorf("folio %s has no --%s", use, flag)
			}
		}
	}
	if !commandHasFlag(t, "serve", "vectra-chunking") {
		t.Error("folio serve has no --vectra-chunking")
	}
}

// `folio serve --root` checks the index options at its start: bad ones
// fail the command before it listens, not each index as it is opened.
func TestServeRefusesBadIndexOptionsAtStart(t *testing.T) {
	dir := t.TempDir()
	for flag, want := range map[string]string{
		"--codes=int2":       `scan codes "int2"`,
		"--narrow-factor=-1": "narrow factor -1 is negative",
		"--rerank-factor=-3": "rerank factor -3 is negative",
	} {
		r := folioIn(t, dir, "serve", "--root", dir, "--port", "0", flag)
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout+r.stderr, "listening") {
			t.Errorf("folio serve --root %s: exit %d, stderr %q; want 1 and %q before listening", flag, r.code, r.stderr, want)
		}
	}
}
