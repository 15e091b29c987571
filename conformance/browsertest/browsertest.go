// Package browsertest runs a package's js/wasm tests in a real headless
// browser, from the package's ordinary go test run: a native test calls
// [Run], which compiles the same package for GOOS=js GOARCH=wasm and runs
// its tests in Chromium through wasmbrowsertest
// (github.com/agnivade/wasmbrowsertest), failing with their output when
// they fail.
//
// The browser tests need the wasmbrowsertest executable, found through the
// FOLIO_WASMBROWSERTEST environment variable or on PATH, and a Chromium
// that it can start. Folio's Makefile installs both and sets the variable;
// without them Run skips, saying why.
//
// # Concurrency
//
// Run may be called from parallel tests; each call is its own go test
// process.
package browsertest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// EnvExecutable names the environment variable holding the path of the
// wasmbrowsertest executable.
const EnvExecutable = "FOLIO_WASMBROWSERTEST"

// Options configures Run. The zero value runs every test of the package.
type Options struct {
	// Env is added to the environment of the browser tests, as
	// "KEY=value"; wasmbrowsertest hands it to the page, where os.Getenv
	// reads it.
	Env []string
	// Args are more go test flags, such as "-run", "TestX".
	Args []string
	// Timeout bounds the browser run; 0 means 5 minutes.
	Timeout time.Duration
}

// Executable returns the wasmbrowsertest executable Run would use, or an
// error saying how to provide one.
func Executable() (string, error) {
	if p := os.Getenv(EnvExecutable); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	p, err := exec.LookPath("wasmbrowsertest")
	if err != nil {
		return "", errors.New("wasmbrowsertest is not installed: set " + EnvExecutable + " to its path or put it on PATH (make test does)")
	}
	return p, nil
}

// Run compiles the package in the current directory (the package under
// test) for js/wasm and runs its tests in headless Chromium. It fails t
// with their output when they fail, and skips t when wasmbrowsertest is
// not available.
func Run(t *testing.T, opts Options) {
	t.Helper()
	wbt, err := Executable()
	if err != nil {
		t.Skip(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the browser tests: %v", err)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	args := append([]string{"test", "-count=1", "-exec", wbt, "-timeout", timeout.String()}, opts.Args...)
	cmd := exec.CommandContext(ctx, goBin, append(args, ".")...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Env = append(cmd.Env, opts.Env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser tests (go %s .): %v\n%s", strings.Join(args, " "), err, filterNoise(out))
	}
	t.Logf("browser tests passed in %s:\n%s", time.Since(start).Round(time.Millisecond), filterNoise(out))
}

// filterNoise drops the lines Chromium's DevTools protocol client logs
// about events it does not know, which say nothing about the tests.
func filterNoise(out []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "could not unmarshal event") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
