package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
)

// The results of the commands that print one: each is printed by app.show,
// as its JSON document with --json, else as its text, so that the two
// always say the same. (JSON fields in alphabetical order, as the maps the
// commands printed before had them.)

// createResult is create's result.
type createResult struct {
	Format string `json:"format"`
	Index  string `json:"index"`
	Model  any    `json:"model"` // the model record, null for none
}

func (r createResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "created %s index at %s\n", r.Format, r.Index)
}

// deleteResult is delete's result.
type deleteResult struct {
	Deleted bool   `json:"deleted"`
	Index   string `json:"index"`
}

func (r deleteResult) writeText(w io.Writer) { fmt.Fprintf(w, "deleting index at %s\n", r.Index) }

// migrateResult is migrate's result.
type migrateResult struct {
	Format string `json:"format"`
	Index  string `json:"index"`
}

func (r migrateResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "migrated index at %s to %s\n", r.Index, r.Format)
}

// versionResult is version's result.
type versionResult struct {
	Version string `json:"version"`
}

func (r versionResult) writeText(w io.Writer) { fmt.Fprintf(w, "folio %s\n", r.Version) }

// generateResult is generate's result.
type generateResult struct {
	Files     []string `json:"files"`
	Language  string   `json:"language"`
	NextSteps string   `json:"nextSteps"`
}

func (r generateResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "wrote %s\n\nNext steps:\n%s\n", strings.Join(r.Files, ", "), r.NextSteps)
}

// removeResult is remove's result.
type removeResult struct {
	Index    string   `json:"index"`
	NotFound []string `json:"notFound"`
	Removed  []string `json:"removed"`
}

func (r removeResult) writeText(w io.Writer) {
	for _, uri := range r.Removed {
		fmt.Fprintf(w, "removed %s\n", uri)
	}
}

// stopResult is stop's result: the server stopped (Killed when it did not
// end within its grace), or found not running.
type stopResult struct {
	Killed  *bool `json:"killed,omitempty"`
	Pid     int   `json:"pid"`
	Running *bool `json:"running,omitempty"`
	Stopped *bool `json:"stopped,omitempty"`
}

func stopped(pid int, killed bool) stopResult {
	yes := true
	return stopResult{Pid: pid, Killed: &killed, Stopped: &yes}
}

func notRunning(pid int) stopResult {
	no := false
	return stopResult{Pid: pid, Running: &no}
}

func (r stopResult) writeText(w io.Writer) {
	if r.Running != nil {
		fmt.Fprintf(w, "server %d is not running\n", r.Pid)
		return
	}
	fmt.Fprintf(w, "stopped server %d\n", r.Pid)
}

// daemonResult is serve --daemon's result: the child's pid, files and the
// address it listens on, from its log's listening line.
type daemonResult struct {
	Listening string `json:"listening"`
	Log       string `json:"log"`
	Pid       int    `json:"pid"`
	PidFile   string `json:"pidFile"`
	line      string // the listening line as logged
}

func (r daemonResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s (pid %d, pid file %s, log %s)\n", r.line, r.Pid, r.PidFile, r.Log)
}

// pulledModel is model pull's result.
type pulledModel struct{ hub.Model }

func (r pulledModel) MarshalJSON() ([]byte, error) { return json.Marshal(modelJSON(r.Model)) }

func (r pulledModel) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s at %s in %s\n", r.Ref, shortCommit(r.Commit), r.Dir)
}

// modelList is model list's result: the models in dir.
type modelList struct {
	dir    string
	models []hub.Model
}

func (r modelList) MarshalJSON() ([]byte, error) {
	out := make([]map[string]any, 0, len(r.models))
	for _, m := range r.models {
		out = append(out, modelJSON(m))
	}
	return json.Marshal(out)
}

func (r modelList) writeText(w io.Writer) {
	if len(r.models) == 0 {
		fmt.Fprintf(w, "no models in %s\n", r.dir)
	}
	for _, m := range r.models {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Ref, shortCommit(m.Commit), size(m), m.Dir)
	}
}

// statsResult is stats' result: what statsOf gathered, by name.
type statsResult map[string]any

// statsKeys are the stats printed as text, in order.
var statsKeys = []string{"index", "kind", "format", "layout", "segments", "tombstones", "version", "documents", "chunks", "items", "outliers", "codeBytes", "partitions", "probes", "rowsRead", "expectedRecall", "model"}

func (r statsResult) writeText(w io.Writer) {
	for _, k := range statsKeys {
		if v, ok := r[k]; ok {
			fmt.Fprintf(w, "%s: %v\n", k, v)
		}
	}
	fmt.Fprintf(w, "indexed metadata: %v\n", r["metadataConfig"].(map[string][]string)["indexed"])
}
