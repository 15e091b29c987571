package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/core"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// app is one invocation: its output streams and global flags.
type app struct {
	stdout, stderr io.Writer
	storageKind    string
	storageRoot    string
	jsonOut        bool
	// offline refuses the network for models named by hub id.
	offline bool
	// logFormat and logLevel are --log-format and --log-level.
	logFormat, logLevel string
	// transport, when set, carries a hosted model's requests (serve's
	// tracing); nil means Go's default.
	transport http.RoundTripper
	// stderrIsTerminal decides whether progress bars are drawn.
	stderrIsTerminal bool
	// quiet silences progress; progressEvery is how often a progress line
	// is printed when stderr is not a terminal.
	quiet         bool
	progressEvery time.Duration
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, stderrIsTerminal: isTerminal(stderr)}
	root := a.rootCommand()
	if cmd, _, err := root.Find(args); err == nil {
		args = vectraArgs(cmd, args, func(option string) {
			fmt.Fprintf(stderr, "folio: ignoring unknown option %s\n", option)
		})
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var usage usageError
	if errors.As(err, &usage) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "folio: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return exitUsage
	}
	if a.jsonOut {
		a.printJSON(map[string]any{"error": err.Error()})
	}
	fmt.Fprintf(stderr, "folio: %v\n", err)
	return exitFailure
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "folio",
		Short: "Local vector search: Vectra-compatible indexes of documents",
		Long: `folio creates, fills, queries and serves Folio (and Vectra 0.15) index folders.

Three commands get a new user going, with no key and nothing installed:

  folio create my-index
  folio add my-index --hash-dims 384 --uri README.md --uri docs/
  folio query my-index "how do I …"

An index remembers the embeddings model that built it (--keys, --model or
--hash-dims), so later commands need no model flag.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("folio {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.storageKind, "storage", "local", "storage: local (files) or virtual (in memory, gone when the command ends)")
	pf.StringVar(&a.storageRoot, "storage-root", "", "folder, or bucket URL (s3://bucket?region=…, gs://…, azblob://…; in a folio built with -tags objectstorage), that index paths are relative to")
	pf.BoolVar(&a.jsonOut, "json", false, "print one JSON document on stdout instead of text")
	pf.BoolVarP(&a.quiet, "quiet", "q", false, "no progress bar or progress lines on stderr")
	pf.StringVar(&a.logFormat, "log-format", "text", "format of the log on stderr: text or json")
	pf.StringVar(&a.logLevel, "log-level", "warn", "least level logged on stderr: debug (each call and commit), info (compactions, reloads), warn or error")
	pf.BoolVar(&a.offline, "offline", false, "never fetch a model from the Hugging Face hub: use the models folder alone (as $HF_HUB_OFFLINE=1)")
	pf.DurationVar(&a.progressEvery, "progress-every", defaultProgressEvery, "how often a progress line is printed when stderr is not a terminal")
	_ = pf.MarkHidden("progress-every")
	root.AddCommand(
		a.createCommand(), a.deleteCommand(), a.addCommand(), a.removeCommand(),
		a.statsCommand(), a.migrateCommand(), a.queryCommand(), a.watchCommand(),
		a.serveCommand(), a.stopCommand(), a.generateCommand(), a.versionCommand(), a.modelCommand(),
		a.publishCommand(),
	)
	plainBoolFlags(root)
	return root
}

// exactArgs is cobra.ExactArgs as a usage error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s, got %d argument(s)", names, len(args))
		}
		return nil
	}
}

// storage returns the storage the global flags choose. A --storage-root
// that is a bucket URL (s3://…, gs://…, azblob://…) is object storage.
func (a *app) storage(ctx context.Context) (core.FileStorage, error) {
	switch a.storageKind {
	case "local", "":
		if a.storageRoot == "" {
			return storagefs.New(nil)
		}
		return openStorage(ctx, a.storageRoot)
	case "virtual":
		return storagemem.New(), nil
	}
	return nil, usagef("--storage %q: want local or virtual", a.storageKind)
}

// printJSON prints v as the command's JSON document.
func (a *app) printJSON(v any) {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// textResult is a command's result that prints itself as text; as JSON
// it is printed by encoding/json.
type textResult interface {
	writeText(w io.Writer)
}

// show prints a command's result: as its JSON document with --json, else
// as its text, so the two are always of the same value.
func (a *app) show(v textResult) {
	if a.jsonOut {
		a.printJSON(v)
		return
	}
	v.writeText(a.stdout)
}

// result prints v when --json.
func (a *app) result(v any) {
	if a.jsonOut {
		a.printJSON(v)
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// isCobraUsage reports whether err is one of cobra's own command-line
// errors that do not pass through the flag error function.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "required flag", "unknown shorthand flag", "unknown flag", "invalid argument"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// aliasFlags makes each key of aliases another name of the flag it maps
// to (Vectra's short spellings such as --cs for --chunk-size).
func aliasFlags(aliases map[string]string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if to, ok := aliases[name]; ok {
			name = to
		}
		return pflag.NormalizedName(name)
	}
}

// logger is the log on stderr that --log-format and --log-level describe.
func (a *app) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", a.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch a.logFormat {
	case "text", "":
		return slog.New(slog.NewTextHandler(a.stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(a.stderr, opts)), nil
	}
	return nil, usagef("--log-format %q: want text or json", a.logFormat)
}
