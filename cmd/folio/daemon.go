//go:build !noserver

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// daemonize starts this command again without --daemon, detached, with its
// output in "<pid file>.log", waits until it listens (or fails), writes its
// PID to pidFile and returns.
func (a *app) daemonize(root string, args []string, pidFile string) error {
	if pidFile == "" {
		pidFile = a.defaultPIDFile(root, args)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var childArgs []string
	for _, arg := range os.Args[1:] {
		if arg != "--daemon" && arg != "--daemon=true" {
			childArgs = append(childArgs, arg)
		}
	}
	// The server holds the PID file's lock as long as it lives, so folio
	// stop can tell it from a process that took its PID after it died.
	lock, err := lockPIDFile(pidFile)
	if errors.Is(err, errPIDFileHeld) {
		return fmt.Errorf("a server started with pid file %s is running: stop it first (folio stop --pid-file %s)", pidFile, pidFile)
	}
	if err != nil {
		return fmt.Errorf("pid file: %w", err)
	}
	defer lock.Close()
	logPath := pidFile + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	child := exec.Command(self, childArgs...)
	child.Stdout, child.Stderr = logFile, logFile
	child.ExtraFiles = []*os.File{lock} // the server's copy holds the lock
	detach(child)
	if err := child.Start(); err != nil {
		return err
	}
	return a.awaitListening(child, pidFile, logPath)
}

// defaultPIDFile is .vectra.pid in --root, beside the index, or here when
// the index is in a bucket.
func (a *app) defaultPIDFile(root string, args []string) string {
	dir := root
	switch {
	case isBucketURL(root) || root == "" && isBucketURL(a.storageRoot):
		dir = "." // the index is in a bucket: the PID file goes here
	case dir == "":
		dir = filepath.Dir(a.folderPath(args[0]))
	}
	return filepath.Join(dir, ".vectra.pid")
}

// awaitListening waits until the started server says it listens, then
// writes its PID file and lets it go; a server that ends first, or does not
// listen within 30 s, is an error.
func (a *app) awaitListening(child *exec.Cmd, pidFile, logPath string) error {
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("the server ended at start (%v): %s", err, strings.TrimSpace(string(out)))
		case <-deadline:
			_ = child.Process.Kill()
			return errors.New("the server did not start listening within 30 s")
		case <-time.After(50 * time.Millisecond):
		}
		if line, ok := firstLineWith(logPath, listeningLine); ok {
			if err := os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o644); err != nil {
				return err
			}
			a.show(daemonResult{Listening: strings.TrimPrefix(line, listeningLine), Log: logPath, Pid: child.Process.Pid, PidFile: pidFile, line: line})
			return child.Process.Release()
		}
	}
}

// errPIDFileHeld says a running server holds the PID file's lock.
var errPIDFileHeld = errors.New("a server holds the pid file")

// firstLineWith returns the first line of the file that starts with prefix.
func firstLineWith(path, prefix string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return sc.Text(), true
		}
	}
	return "", false
}
