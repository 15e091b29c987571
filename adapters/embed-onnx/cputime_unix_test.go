//go:build unix

package embedonnx

import "syscall"

// cpuSeconds is the CPU time the process has used, all threads (the
// runtime's included), user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
