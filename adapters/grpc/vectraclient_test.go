package grpcserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestVectraPythonClient runs Vectra 0.15's generated Python client,
// unchanged, against the server. FOLIO_VECTRA_PY names the folder holding
// the generated client and its stubs, FOLIO_PYTHON the Python with grpcio
// (python3 by default); `make vectra-client-test` makes them
// (npm vectra@0.15.0, Debian's python3-grpc-tools) and runs this test.
func TestVectraPythonClient(t *testing.T) {
	dir := os.Getenv("FOLIO_VECTRA_PY")
	if dir == "" {
		t.Skip("FOLIO_VECTRA_PY is not set: run make vectra-client-test")
	}
	ts := startServer(t, nil)
	script, err := filepath.Abs(filepath.Join("testdata", "vectra_client_check.py"))
	if err != nil {
		t.Fatal(err)
	}
	python := os.Getenv("FOLIO_PYTHON")
	if python == "" {
		python = "python3"
	}
	cmd := exec.CommandContext(t.Context(), python, script, strconv.Itoa(ts.port))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the Python client failed: %v", err)
	}
	select {
	case <-ts.srv.Done(): // the script ends with the Shutdown RPC
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after the client's shutdown()")
	}
}
