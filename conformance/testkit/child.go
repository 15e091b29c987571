package testkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Child is the test binary started again as a child process, for a test
// that kills a process mid-write or has several processes share a folder.
// The child's side runs from the test package's TestMain (or an init)
// when its environment variable is set: it sets up, prints "ready" on a
// line of its own, and goes on.
type Child struct {
	// Cmd is the child's command; Cmd.Env ends with the variables given
	// to StartChild.
	Cmd *exec.Cmd
	// Stdout is the child's standard output after its "ready" line.
	Stdout *bufio.Reader
	env    []string
	stderr lockedBuilder
}

// StartChild starts the test binary again (os.Args[0], running no test)
// with env (KEY=VALUE) added to this process's environment, and waits for
// its first line, which must be "ready". ctx's end kills the child. On an
// error the child has been killed and waited for.
func StartChild(ctx context.Context, env ...string) (*Child, error) {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	c := &Child{Cmd: cmd, env: env}
	cmd.Stderr = &c.stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return nil, err
	}
	c.Stdout = bufio.NewReader(out)
	if line, err := c.Stdout.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("child %v did not get ready: %q, %v; stderr: %s", env, line, err, c.Stderr())
	}
	return c, nil
}

// Stderr returns what the child has written to its standard error.
func (c *Child) Stderr() string { return c.stderr.String() }

// Kill kills the child at once (SIGKILL where there are signals).
func (c *Child) Kill() error { return c.Cmd.Process.Kill() }

// Wait waits for the child's end, once its output has been read (Wait
// closes Stdout). An error carries the child's standard error.
func (c *Child) Wait() error {
	if err := c.Cmd.Wait(); err != nil {
		return fmt.Errorf("child %v: %w; stderr: %s", c.env, err, c.Stderr())
	}
	return nil
}

// WaitKilled is Wait for a child that Kill killed: it returns an error if
// the child ended by itself instead.
func (c *Child) WaitKilled() error {
	err := c.Cmd.Wait()
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.Exited() {
		return fmt.Errorf("child %v ended by itself (%v) instead of being killed; stderr: %s", c.env, err, c.Stderr())
	}
	return nil
}

// lockedBuilder is a strings.Builder that the goroutine copying the
// child's standard error and the test may use at once.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
