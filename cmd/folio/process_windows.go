//go:build windows && !noserver

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// detachedProcess is DETACHED_PROCESS: the child has no console.
const detachedProcess = 0x00000008

// detach starts cmd's process without a console, in a process group of its
// own, so the server outlives the shell that started it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}

// terminate stops the process. Windows has no SIGTERM to send to a
// process without a console, so the server is ended at once; every write
// it accepted was already committed.
func terminate(proc *os.Process) (bool, error) {
	if err := proc.Kill(); err != nil {
		return false, nil
	}
	_, _ = proc.Wait()
	return true, nil
}

// alive reports whether the process still runs; after terminate it does
// not.
func alive(*os.Process) bool { return false }

// lockPIDFile opens the PID file. Windows has no flock: the file is not
// locked, and folio stop trusts the PID it holds.
func lockPIDFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// serverHolds reports true: without a lock to ask, folio stop trusts the
// PID file.
func serverHolds(string) (bool, error) { return true, nil }
