package core

import (
	"io"
	"time"
)

// maxYield bounds one pause of a yieldingWriter.
const maxYield = 50 * time.Millisecond

// yieldingWriter passes writes on to w. While busy reports true (queries
// are being answered), it pauses after each write for as long as the
// writing took since its last pause, at most maxYield: a commit of
// Vectra's layout, which encodes the whole index, then takes at most
// about half a core from the queries, and finishes later.
type yieldingWriter struct {
	w     io.Writer
	busy  func() bool
	now   func() time.Time
	sleep func(time.Duration)
	since time.Time // the end of the last pause
}

func newYieldingWriter(w io.Writer, busy func() bool) *yieldingWriter {
	return &yieldingWriter{w: w, busy: busy, now: time.Now, sleep: time.Sleep, since: time.Now()}
}

func (y *yieldingWriter) Write(p []byte) (int, error) {
	n, err := y.w.Write(p)
	if err == nil && y.busy() {
		y.sleep(min(y.now().Sub(y.since), maxYield))
	}
	y.since = y.now()
	return n, err
}
