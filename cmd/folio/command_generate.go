//go:build !noserver

package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

//go:embed templates
var templates embed.FS

// nextSteps are the commands that turn the proto into a client, per
// language; for Go and Python the ready client is written too.
var nextSteps = map[string]string{
	"go": `A ready client module is in %[1]s (main.go, go.mod, and the generated stubs in vectrapb/),
so no protoc is needed. Build it and list the indexes of the server at $FOLIO_ADDR (default 127.0.0.1:50051):
  cd %[1]s && go mod tidy && go run .
Query a document index:
  go run . -addr 127.0.0.1:50051 index-name "your query"`,
	"python": `A ready client is in client.py. %[2]s
Generate its stubs and run it against the server at $FOLIO_ADDR (default 127.0.0.1:50051):
  cd %[1]s && %[3]s -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. vectra_service.proto
  %[3]s client.py index-name "your query"`,
	"typescript": `Only the proto is written. Generate stubs with, for example:
  npm install @grpc/grpc-js @grpc/proto-loader
  and load %[1]s/vectra_service.proto with @grpc/proto-loader at run time,
  or: npx grpc_tools_node_protoc --ts_out=%[1]s --grpc_out=grpc_js:%[1]s -I %[1]s %[1]s/vectra_service.proto`,
	"csharp": `Only the proto is written. Generate stubs with Grpc.Tools: add to your .csproj
  <Protobuf Include="%[1]s/vectra_service.proto" GrpcServices="Client" />
  and the packages Grpc.Net.Client, Google.Protobuf and Grpc.Tools.`,
	"java": `Only the proto is written. Generate stubs with, for example:
  protoc -I %[1]s --java_out=%[1]s --grpc-java_out=%[1]s %[1]s/vectra_service.proto
  (protoc-gen-grpc-java from io.grpc), or the protobuf Gradle/Maven plugin.`,
	"rust": `Only the proto is written. Generate stubs with tonic-build in build.rs:
  tonic_build::compile_protos("%[1]s/vectra_service.proto")?;`,
}

func (a *app) generateCommand() *cobra.Command {
	var language, output string
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write the gRPC service's proto, and a ready client for Go and Python",
		Example: `  folio generate --language python --output ./client
  folio generate -l go -o ./goclient`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			steps, ok := nextSteps[language]
			if !ok {
				langs := make([]string, 0, len(nextSteps))
				for l := range nextSteps {
					langs = append(langs, l)
				}
				slices.Sort(langs)
				return usagef("--language %q: want one of %s", language, strings.Join(langs, ", "))
			}
			if err := os.MkdirAll(output, 0o755); err != nil {
				return err
			}
			written := []string{filepath.Join(output, "vectra_service.proto")}
			if err := os.WriteFile(written[0], vectrapb.Proto, 0o644); err != nil {
				return err
			}
			if language == "go" {
				stubs, err := writeGoModule(output)
				if err != nil {
					return err
				}
				written = append(written, stubs...)
			}
			entries, _ := templates.ReadDir("templates/" + language)
			for _, e := range entries {
				raw, err := templates.ReadFile("templates/" + language + "/" + e.Name())
				if err != nil {
					return err
				}
				name := filepath.Join(output, strings.TrimSuffix(e.Name(), ".tmpl"))
				if err := os.WriteFile(name, raw, 0o644); err != nil {
					return err
				}
				written = append(written, name)
			}
			var next string
			if language == "python" {
				python, found := pythonWithGRPC(cmd.Context())
				install := "Install gRPC for Python (offline on Debian and Ubuntu, from their packages, which are\n" +
					"Debian's own Python's (" + debianPython + "); or from PyPI, for another Python: pip install grpcio grpcio-tools):\n" +
					"  sudo apt-get install python3-grpcio python3-grpc-tools"
				if found {
					install = "gRPC for Python is installed for " + python + ", which the commands below use."
				}
				next = fmt.Sprintf(steps, output, install, python)
			} else {
				next = fmt.Sprintf(steps, output)
			}
			a.show(generateResult{Files: written, Language: language, NextSteps: next})
			return nil
		},
	}
	cmd.Flags().StringVarP(&language, "language", "l", "", "go, python, typescript, csharp, java or rust (required)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "folder to write into (required)")
	_ = cmd.MarkFlagRequired("language")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// goClientModule is the module path of the Go client generate writes; its
// main.go imports the stubs as goClientModule + "/vectrapb".
const goClientModule = "example.com/folioclient"

// writeGoModule writes the Go client's go.mod and the generated stubs
// (vectrapb/) into dir, so the client builds in an empty folder with
// nothing but the Go module proxy. The go.mod requires the versions of
// google.golang.org/grpc and google.golang.org/protobuf this folio binary
// was built with, which the stubs are known to work with.
func writeGoModule(dir string) ([]string, error) {
	var written []string
	if err := os.MkdirAll(filepath.Join(dir, "vectrapb"), 0o755); err != nil {
		return nil, err
	}
	err := fs.WalkDir(vectrapb.GoSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := vectrapb.GoSources.ReadFile(p)
		if err != nil {
			return err
		}
		name := filepath.Join(dir, "vectrapb", filepath.FromSlash(p))
		written = append(written, name)
		return os.WriteFile(name, raw, 0o644)
	})
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(name, goClientGoMod(), 0o644); err != nil {
		return nil, err
	}
	return append(written, name), nil
}

// goClientGoMod is the generated client's go.mod. The versions are the
// ones linked into this binary; a build without module information (which
// go build always records) falls back to the versions Folio was released
// with.
func goClientGoMod() []byte {
	versions := map[string]string{
		"google.golang.org/grpc":     "v1.84.0",
		"google.golang.org/protobuf": "v1.36.12",
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			if _, want := versions[dep.Path]; want && dep.Version != "" {
				versions[dep.Path] = dep.Version
			}
		}
	}
	return fmt.Appendf(nil, "module %s\n\ngo %s\n\nrequire (\n\tgoogle.golang.org/grpc %s\n\tgoogle.golang.org/protobuf %s\n)\n",
		goClientModule, goClientGoVersion, versions["google.golang.org/grpc"], versions["google.golang.org/protobuf"])
}

// goClientGoVersion is the generated client's go line: the least Go
// version its requirements accept (gRPC v1.84.0's go.mod says go 1.25.0),
// so that go mod tidy leaves it as written.
const goClientGoVersion = "1.25.0"

// debianPython is the Python Debian's python3-grpcio and python3-grpc-tools
// install for, which may not be the python3 first on PATH (pyenv, a venv).
const debianPython = "/usr/bin/python3"

// pythonWithGRPC returns the Python the generated client's steps name: the
// first of python3 on PATH and Debian's own that imports grpc and
// grpc_tools (found true), else Debian's when it is there (the packages
// install for it), else python3.
func pythonWithGRPC(ctx context.Context) (python string, found bool) {
	var candidates []string
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	if _, err := os.Stat(debianPython); err == nil && !slices.Contains(candidates, debianPython) {
		candidates = append(candidates, debianPython)
	}
	for _, p := range candidates {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := exec.CommandContext(ctx, p, "-c", "import grpc, grpc_tools").Run()
		cancel()
		if err == nil {
			return p, true
		}
	}
	if slices.Contains(candidates, debianPython) {
		return debianPython, false
	}
	return "python3", false
}
