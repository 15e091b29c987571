package storagetest

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
)

// checkTB is the testing.TB that Check hands to newHarness outside go test.
// It records failures instead of reporting them; FailNow and SkipNow end the
// harness's goroutine, as they do in a test. Methods it does not override
// (ArtifactDir, Setenv, Chdir) are not available outside go test and panic.
type checkTB struct {
	testing.TB // nil: only the methods below may be called

	name string
	ctx  context.Context

	mu       sync.Mutex
	failures []string
	failed   bool
	skipped  bool
	cleanups []func()
}

func newCheckTB(ctx context.Context, name string) *checkTB {
	return &checkTB{name: name, ctx: ctx}
}

// run calls fn in its own goroutine, so FailNow can end it, then runs the
// cleanups in reverse order.
func (c *checkTB) run(fn func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				c.Errorf("panic: %v", r)
			}
		}()
		fn(c)
	}()
	<-done
	c.mu.Lock()
	cleanups := c.cleanups
	c.cleanups = nil
	c.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

func (c *checkTB) Helper()                  {}
func (c *checkTB) Name() string             { return c.name }
func (c *checkTB) Context() context.Context { return c.ctx }
func (c *checkTB) Output() io.Writer        { return io.Discard }
func (c *checkTB) Attr(key, value string)   {}
func (c *checkTB) Log(args ...any)          {}
func (c *checkTB) Logf(string, ...any)      {}

func (c *checkTB) Cleanup(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanups = append(c.cleanups, fn)
}

func (c *checkTB) Fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
}

func (c *checkTB) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *checkTB) Error(args ...any)                 { c.record(fmt.Sprint(args...)) }
func (c *checkTB) Errorf(format string, args ...any) { c.record(fmt.Sprintf(format, args...)) }

func (c *checkTB) Fatal(args ...any) {
	c.record(fmt.Sprint(args...))
	runtime.Goexit()
}

func (c *checkTB) Fatalf(format string, args ...any) {
	c.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (c *checkTB) FailNow() {
	c.Fail()
	runtime.Goexit()
}

func (c *checkTB) Skip(args ...any)     { c.SkipNow() }
func (c *checkTB) Skipf(string, ...any) { c.SkipNow() }

func (c *checkTB) Skipped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

func (c *checkTB) SkipNow() {
	c.mu.Lock()
	c.skipped = true
	c.mu.Unlock()
	runtime.Goexit()
}

// TempDir returns a new directory, removed when the case ends.
func (c *checkTB) TempDir() string {
	dir, err := os.MkdirTemp("", "storagetest-")
	if err != nil {
		c.Fatalf("temp dir: %v", err)
	}
	c.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (c *checkTB) record(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
	c.failures = append(c.failures, msg)
}

func (c *checkTB) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.failures...)
}
