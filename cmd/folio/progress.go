package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// defaultProgressEvery is how often a command that runs long prints a
// progress line when stderr is not a terminal (a pipe, a log, CI).
const defaultProgressEvery = 5 * time.Second

// progress reports a long command's progress on stderr: a bar on a
// terminal, otherwise a line every app.progressEvery; nothing with
// --quiet. It is used from one goroutine.
type progress struct {
	a     *app
	what  string
	bar   *progressbar.ProgressBar
	start time.Time
	last  time.Time // of the last line printed
	lines bool
}

// newProgress starts reporting the progress of what ("adding").
func (a *app) newProgress(what string) *progress {
	p := &progress{a: a, what: what, start: time.Now()}
	p.last = p.start
	switch {
	case a.quiet:
	case a.stderrIsTerminal:
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	default:
		p.lines = true
	}
	return p
}

// update reports the files read, the documents stored and the chunks
// embedded so far. The files read are the total known so far: a folder is
// walked as it is added.
func (p *progress) update(read, docs, chunks int) {
	counts := fmt.Sprintf("%s read, %s stored, %s embedded", plural(read, "file"), plural(docs, "document"), plural(chunks, "chunk"))
	switch {
	case p.bar != nil:
		p.bar.Describe(p.what + ": " + counts)
		_ = p.bar.Add(0)
	case p.lines:
		now := time.Now()
		if now.Sub(p.last) < p.a.progressEvery {
			return
		}
		p.last = now
		secs := now.Sub(p.start).Seconds()
		fmt.Fprintf(p.a.stderr, "%s: %s in %.0f s (%.0f chunks/s)\n", p.what, counts, secs, float64(chunks)/secs)
	}
}

// finish ends the bar.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.a.stderr)
	}
}

// plural is "1 document", "2 documents".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
