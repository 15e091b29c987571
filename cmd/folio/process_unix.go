//go:build unix && !noserver

package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// detach makes cmd's process the leader of a session of its own, so the
// server outlives the shell that started it and its terminal's signals.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// terminate asks the process to stop (SIGTERM: the server drains and
// exits). It reports false when no such process runs.
func terminate(proc *os.Process) (bool, error) {
	err := proc.Signal(syscall.SIGTERM)
	if errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	return err == nil, err
}

// alive reports whether the process still runs.
func alive(proc *os.Process) bool {
	return proc.Signal(syscall.Signal(0)) == nil
}

// lockPIDFile opens the PID file and locks it (flock, exclusive), for the
// server to hold as long as it lives: the file passes to the server as an
// inherited descriptor, and the lock goes when the server's last copy of it
// closes, however the server ends. It fails when a server holds it.
func lockPIDFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errPIDFileHeld
		}
		return nil, err
	}
	return f, nil
}

// serverHolds reports whether a server started by serve --daemon holds the
// PID file's lock, that is, still runs.
func serverHolds(path string) (bool, error) {
	f, err := lockPIDFile(path)
	if errors.Is(err, errPIDFileHeld) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	f.Close()
	return false, nil
}
