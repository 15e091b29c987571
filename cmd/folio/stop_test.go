//go:build unix && !noserver

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The reproduction of folio stop killing whatever its PID file names: a
// server killed with -9 leaves its PID file, the PID is taken by another
// process, and folio stop signals nothing, says why, and removes the file.
func TestStopSignalsOnlyTheServerThatHoldsThePIDFile(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	pidFile := filepath.Join(dir, "folio.pid")
	// A stale PID file, as a server killed by -9 leaves it, naming a
	// process that is not Folio.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := must(t, dir, 1, "stop", "--pid-file", pidFile)
	if !strings.Contains(r.stderr, "stale") || !strings.Contains(r.stderr, "not signalled") {
		t.Errorf("stop with a stale PID file says %q, want why nothing was signalled", r.stderr)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the unrelated process was signalled: %v", err)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("the stale PID file is still there: %v", err)
	}

	// A real server, killed with -9: its PID file goes stale the same way.
	port := freePort(t)
	must(t, dir, 0, "serve", "ix", "--port", strconv.Itoa(port), "--daemon", "--pid-file", pidFile)
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if r := folioIn(t, dir, "serve", "ix", "--port", strconv.Itoa(freePort(t)), "--daemon", "--pid-file", pidFile); r.code == 0 || !strings.Contains(r.stderr, "is running") {
		t.Errorf("a second server on the same PID file: exit %d, %q", r.code, r.stderr)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The lock goes with the process, before it is reaped.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if held, err := serverHolds(pidFile); err != nil || !held || time.Now().After(deadline) {
			break
		}
	}
	must(t, dir, 1, "stop", "--pid-file", pidFile)
	// And a live one stops.
	must(t, dir, 0, "serve", "ix", "--port", strconv.Itoa(port), "--daemon", "--pid-file", pidFile)
	must(t, dir, 0, "stop", "--pid-file", pidFile)
}

// folio serve says why it stops and that it has: a SIGTERM (as from a
// service manager or folio stop) prints the signal, that the calls in
// progress get to finish, and "stopped", and the process exits 0.
func TestServeSaysWhyItStops(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	port := freePort(t)
	cmd := exec.Command(folioBin, "serve", "ix", "--port", strconv.Itoa(port))
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line := make([]byte, 256)
	if n, err := stdout.Read(line); err != nil || !strings.Contains(string(line[:n]), listeningLine) {
		t.Fatalf("serve printed %q (%v), want the listening line", line[:n], err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30 s of SIGTERM")
	}
	if got := stderr.String(); !strings.Contains(got, "stopping on signal terminated") || !strings.Contains(got, "finishing the calls in progress") || !strings.HasSuffix(strings.TrimSpace(got), "folio serve: stopped") {
		t.Errorf("serve on SIGTERM said\n%s", got)
	}
}
