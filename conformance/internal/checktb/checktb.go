package checktb

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
)

// TB is the testing.TB that a suite's Check hands to its cases and to the
// adapter's constructor outside go test. It records failures instead of
// reporting them; FailNow and SkipNow end the case's goroutine, as they do in
// a test. Methods it does not override (ArtifactDir, Setenv, Chdir) are not
// available outside go test and panic.
type TB struct {
	testing.TB // nil: only the methods below may be called

	name       string
	ctx        context.Context
	tempPrefix string

	mu       sync.Mutex
	failures []string
	failed   bool
	skipped  bool
	cleanups []func()
}

// New returns a TB for the case called name; TempDir names its folders
// tempPrefix followed by a random suffix.
func New(ctx context.Context, name, tempPrefix string) *TB {
	return &TB{name: name, ctx: ctx, tempPrefix: tempPrefix}
}

// Run calls fn in its own goroutine, so FailNow can end it, then runs the
// cleanups in reverse order.
func (c *TB) Run(fn func(testing.TB)) {
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

func (c *TB) Helper()                  {}
func (c *TB) Name() string             { return c.name }
func (c *TB) Context() context.Context { return c.ctx }
func (c *TB) Output() io.Writer        { return io.Discard }
func (c *TB) Attr(key, value string)   {}
func (c *TB) Log(args ...any)          {}
func (c *TB) Logf(string, ...any)      {}

func (c *TB) Cleanup(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanups = append(c.cleanups, fn)
}

func (c *TB) Fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
}

func (c *TB) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *TB) Error(args ...any) { c.record(fmt.Sprint(args...)) }

func (c *TB) Errorf(format string, args ...any) { c.record(fmt.Sprintf(format, args...)) }

func (c *TB) Fatal(args ...any) {
	c.record(fmt.Sprint(args...))
	runtime.Goexit()
}

func (c *TB) Fatalf(format string, args ...any) {
	c.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (c *TB) FailNow() {
	c.Fail()
	runtime.Goexit()
}

func (c *TB) Skip(args ...any)     { c.SkipNow() }
func (c *TB) Skipf(string, ...any) { c.SkipNow() }
func (c *TB) Skipped() bool        { c.mu.Lock(); defer c.mu.Unlock(); return c.skipped }
func (c *TB) SkipNow()             { c.mu.Lock(); c.skipped = true; c.mu.Unlock(); runtime.Goexit() }
func (c *TB) TempDir() string      { return c.tempDir() }
func (c *TB) record(msg string) {
	c.mu.Lock()
	c.failed = true
	c.failures = append(c.failures, msg)
	c.mu.Unlock()
}

// Messages returns the failures recorded so far.
func (c *TB) Messages() (msgs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(msgs, c.failures...)
}
func (c *TB) tempDir() string {
	dir, err := os.MkdirTemp("", c.tempPrefix)
	if err != nil {
		c.Fatalf("temp dir: %v", err)
	}
	c.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
