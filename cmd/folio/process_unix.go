//go:build unix

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
