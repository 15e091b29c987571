package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
)

// modelCommand is `folio model pull|list`: models fetched by name from
// the Hugging Face hub, for people who prefetch.
func (a *app) modelCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Fetch and list local ONNX models by Hugging Face id",
		Long: `A local model named by its Hugging Face id (--model owner/name[@revision] on add,
watch, query and serve) is fetched once into the models folder ($FOLIO_MODELS_DIR,
else ~/.cache/folio/models) and used from there ever after, with no request.
These commands fetch one ahead of time and list those in place.

$HF_ENDPOINT names a mirror of the hub, $HF_TOKEN a token for gated models
(never logged or written), and --offline or $HF_HUB_OFFLINE=1 refuses the network.`,
	}
	var dtype string
	pull := &cobra.Command{
		Use:   "pull <model id>",
		Short: "Fetch a model from the Hugging Face hub into the models folder",
		Example: `  folio model pull Xenova/all-MiniLM-L6-v2
  folio model pull Xenova/bge-small-en-v1.5 --dtype q8
  HF_ENDPOINT=https://hf-mirror.example folio model pull Xenova/all-MiniLM-L6-v2`,
		Args: exactArgs(1, "<model id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.pullModel(cmd.Context(), args[0], dtype)
			if err != nil {
				return err
			}
			a.show(pulledModel{m})
			return nil
		},
	}
	pull.Flags().StringVar(&dtype, "dtype", "fp32", "model file to fetch: fp32 (onnx/model.onnx), fp16, q8 (model_quantized.onnx) or q4")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the models in the models folder",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			models, err := a.hub(nil).List()
			if err != nil {
				return err
			}
			dir, _ := a.hub(nil).Dir()
			a.show(modelList{dir: dir, models: models})
			return nil
		},
	}
	cmd.AddCommand(pull, list)
	return cmd
}

func shortCommit(c string) string {
	if c == "" {
		return "(by hand)"
	}
	return c[:min(len(c), 12)]
}

func size(m hub.Model) string {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	if len(m.Files) == 0 {
		return "-"
	}
	return bytesText(n)
}

func modelJSON(m hub.Model) map[string]any {
	files := m.Files
	if files == nil {
		files = []hub.File{}
	}
	return map[string]any{"id": m.Ref.ID, "revision": m.Ref.Revision, "commit": m.Commit, "folder": m.Dir, "files": files}
}

// hub is the models folder and the hub as the flags and environment
// set them, reporting on stderr through report.
func (a *app) hub(report func(hub.Progress)) *hub.Hub {
	return hub.New("", &hub.Options{Offline: a.offline, Progress: report})
}

// pullModel fetches a model by id unless it is in place (no request then),
// reporting the download on stderr.
func (a *app) pullModel(ctx context.Context, id, dtype string) (hub.Model, error) {
	r := &pullReport{a: a, id: id}
	defer r.finish()
	return a.hub(r.update).Pull(ctx, id, dtype)
}

// pullReport shows a pull on stderr: a byte bar per file on a terminal,
// else a line when a file starts, every --progress-every while it comes,
// and when it is in place; nothing with --quiet or for files found.
type pullReport struct {
	a    *app
	id   string
	bar  *progressbar.ProgressBar
	last time.Time
}

func (r *pullReport) update(p hub.Progress) {
	if r.a.quiet {
		return
	}
	switch p.Status {
	case "download":
		r.finish()
		if r.a.stderrIsTerminal {
			total := p.Total
			if total == 0 {
				total = -1 // unknown: a spinner
			}
			r.bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(r.a.stderr), progressbar.OptionShowBytes(true),
				progressbar.OptionSetDescription(fmt.Sprintf("fetching %s: %s", r.id, p.File)),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			_ = r.bar.Set64(p.Loaded)
			return
		}
		from := ""
		if p.Loaded > 0 {
			from = ", resuming at " + bytesText(p.Loaded)
		}
		fmt.Fprintf(r.a.stderr, "fetching %s: %s (%s%s)\n", r.id, p.File, bytesText(p.Total), from)
		r.last = time.Now()
	case "progress":
		if r.bar != nil {
			_ = r.bar.Set64(p.Loaded)
			return
		}
		if time.Since(r.last) >= r.a.progressEvery {
			fmt.Fprintf(r.a.stderr, "fetching %s: %s %s of %s\n", r.id, p.File, bytesText(p.Loaded), bytesText(p.Total))
			r.last = time.Now()
		}
	case "done":
		if r.bar != nil {
			r.finish()
			fmt.Fprintf(r.a.stderr, "fetched %s: %s\n", r.id, p.File)
		} else if !r.last.IsZero() {
			fmt.Fprintf(r.a.stderr, "fetched %s: %s\n", r.id, p.File)
			r.last = time.Time{}
		}
	}
}

func (r *pullReport) finish() {
	if r.bar != nil {
		_ = r.bar.Finish()
		r.bar = nil
	}
}

// bytesText is n bytes for a person: "812 B", "4.2 kB", "90.4 MB".
func bytesText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
