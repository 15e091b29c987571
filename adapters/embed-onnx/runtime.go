package embedonnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// RuntimeVersion is the ONNX Runtime release the adapter is built against
// (the binding speaks its C API, version 24).
const RuntimeVersion = "1.24.3"

// LibraryPathEnv names the environment variable that gives the runtime
// library's path when the options do not.
const LibraryPathEnv = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// ErrRuntimeNotFound: the ONNX Runtime shared library was not found.
var ErrRuntimeNotFound = errors.New("onnx runtime library not found")

// processRuntime is the ONNX Runtime environment of this process.
//
// It is the package's one piece of package-level mutable state, on purpose:
// the runtime library is loaded with dlopen and its environment (OrtEnv) is
// process-global inside the binding, which allows one initialisation per
// process. The mutex makes that initialisation happen once, whichever
// model is created first, while letting a failed attempt (library missing)
// be retried. Once loaded the environment stays alive until the process
// exits: sessions are closed by Close, the environment is never torn down,
// so no model can pull it from under another.
var processRuntime struct {
	mu   sync.Mutex
	path string // the library loaded; "" until loaded
}

// initRuntime loads the runtime library once per process.
func initRuntime(libraryPath string) error {
	processRuntime.mu.Lock()
	defer processRuntime.mu.Unlock()
	if processRuntime.path != "" {
		if libraryPath != "" && !samePath(libraryPath, processRuntime.path) {
			return fmt.Errorf("embedonnx: load onnx runtime %s: the process already loaded %s, and one process holds one runtime",
				libraryPath, processRuntime.path)
		}
		return nil
	}
	if ort.IsInitialized() {
		// Another user of the binding in this process initialised it.
		processRuntime.path = "(loaded by another package)"
		return nil
	}
	path, err := findLibrary(libraryPath)
	if err != nil {
		return err
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelFatal()); err != nil {
		return fmt.Errorf("embedonnx: load onnx runtime %s: %w", path, err)
	}
	processRuntime.path = path
	return nil
}

func samePath(a, b string) bool {
	ca, errA := filepath.Abs(a)
	cb, errB := filepath.Abs(b)
	return errA == nil && errB == nil && filepath.Clean(ca) == filepath.Clean(cb)
}

// libraryFile is the runtime library's file name in the onnxruntime-node
// package for this operating system.
func libraryFile() string {
	switch runtime.GOOS {
	case "darwin":
		return "libonnxruntime." + RuntimeVersion + ".dylib"
	case "windows":
		return "onnxruntime.dll"
	}
	return "libonnxruntime.so.1"
}

// npmPlatform is the folder of this platform's library in the
// onnxruntime-node package.
func npmPlatform() string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	return runtime.GOOS + "/" + arch
}

// findLibrary locates the runtime library: the given path, else
// $ONNXRUNTIME_SHARED_LIBRARY_PATH, else .cache/onnxruntime/<version>/ in
// the working directory or the nearest parent that has it (where `make
// onnxruntime` installs it in a Folio checkout), else the user cache folder
// (<user cache>/folio/onnxruntime/<version>/).
func findLibrary(libraryPath string) (string, error) {
	if libraryPath != "" {
		return existingFile(libraryPath, "option LibraryPath")
	}
	if env := os.Getenv(LibraryPathEnv); env != "" {
		return existingFile(env, "$"+LibraryPathEnv)
	}
	rel := filepath.Join(".cache", "onnxruntime", RuntimeVersion, libraryFile())
	var looked []string
	if dir, err := os.Getwd(); err == nil {
		for {
			candidate := filepath.Join(dir, rel)
			if isFile(candidate) {
				return candidate, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		looked = append(looked, rel+" in the working directory and its parents")
	}
	if cache, err := os.UserCacheDir(); err == nil {
		candidate := filepath.Join(cache, "folio", "onnxruntime", RuntimeVersion, libraryFile())
		if isFile(candidate) {
			return candidate, nil
		}
		looked = append(looked, candidate)
	}
	return "", fmt.Errorf("embedonnx: %w: looked in %s; %s", ErrRuntimeNotFound, strings.Join(looked, ", "), installHint())
}

func existingFile(path, source string) (string, error) {
	if !isFile(path) {
		return "", fmt.Errorf("embedonnx: %w: %s names %s, which is not a file; %s", ErrRuntimeNotFound, source, path, installHint())
	}
	return path, nil
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// installHint says how to get the library.
func installHint() string {
	return fmt.Sprintf("install ONNX Runtime %[1]s with `make onnxruntime` in the Folio repository, "+
		"or run `npm pack onnxruntime-node@%[1]s`, extract package/bin/napi-v6/%[2]s/%[3]s from the tarball "+
		"and set %[4]s (or the LibraryPath option) to its path",
		RuntimeVersion, npmPlatform(), libraryFile(), LibraryPathEnv)
}
