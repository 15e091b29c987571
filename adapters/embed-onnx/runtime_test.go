package embedonnx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindLibrary(t *testing.T) {
	lib := filepath.Join(t.TempDir(), libraryFile())
	if err := os.WriteFile(lib, []byte("stand-in"), 0o644); err != nil {
		t.Fatal(err)
	}
	emptyCache := func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", dir)
		t.Setenv("HOME", dir)
		t.Chdir(dir)
	}
	t.Run("the option comes first", func(t *testing.T) {
		t.Setenv(LibraryPathEnv, "/nowhere/lib.so")
		if got, err := findLibrary(lib); err != nil || got != lib {
			t.Fatalf("findLibrary = %q, %v", got, err)
		}
	})
	t.Run("then the environment variable", func(t *testing.T) {
		t.Setenv(LibraryPathEnv, lib)
		if got, err := findLibrary(""); err != nil || got != lib {
			t.Fatalf("findLibrary = %q, %v", got, err)
		}
	})
	t.Run("then .cache/onnxruntime in the working directory or a parent", func(t *testing.T) {
		t.Setenv(LibraryPathEnv, "")
		emptyCache(t)
		root := t.TempDir()
		want := filepath.Join(root, ".cache", "onnxruntime", RuntimeVersion, libraryFile())
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(want, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(root, "a", "b")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(sub)
		got, err := findLibrary("")
		if err != nil {
			t.Fatal(err)
		}
		if resolved, _ := filepath.EvalSymlinks(got); resolved != mustEval(t, want) {
			t.Fatalf("findLibrary = %q, want %q", got, want)
		}
	})
	for _, tc := range []struct {
		name, option, env, mentions string
	}{
		{"a missing option path says how to install", "/nowhere/" + libraryFile(), "", "option LibraryPath"},
		{"a missing environment path says how to install", "", "/nowhere/" + libraryFile(), "$" + LibraryPathEnv},
		{"nothing found says where it looked and how to install", "", "", filepath.Join(".cache", "onnxruntime", RuntimeVersion)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(LibraryPathEnv, tc.env)
			emptyCache(t)
			_, err := findLibrary(tc.option)
			if !errors.Is(err, ErrRuntimeNotFound) {
				t.Fatalf("err = %v, want ErrRuntimeNotFound", err)
			}
			for _, part := range []string{tc.mentions, "make onnxruntime", "npm pack onnxruntime-node@" + RuntimeVersion, LibraryPathEnv, npmPlatform()} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

func TestRuntimeLoadsOncePerProcess(t *testing.T) {
	// Load it (the tests' models need it anyway), then ask for another file.
	if err := initRuntime(""); err != nil {
		t.Fatal(err)
	}
	if err := initRuntime(""); err != nil {
		t.Fatalf("second initialisation: %v", err)
	}
	other := filepath.Join(t.TempDir(), libraryFile())
	err := initRuntime(other)
	if err == nil || !strings.Contains(err.Error(), "already loaded") {
		t.Fatalf("loading a second library: %v, want an error saying one is already loaded", err)
	}
}

func mustEval(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
