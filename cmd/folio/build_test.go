package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The default build, the one make demo and make install make, links no
// cloud SDK, and a bucket URL given to it says how to get a build that
// opens buckets, without printing the URL's query.
func TestDefaultBuildLinksNoCloudSDK(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "folio")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mods, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []string{"github.com/aws/", "github.com/Azure/", "cloud.google.com/go/storage", "gocloud.dev"} {
		if strings.Contains(string(mods), "dep\t"+sdk) {
			t.Errorf("the default build links %s", sdk)
		}
	}
	if info, err := os.Stat(bin); err == nil {
		t.Logf("default build: %.1f MB", float64(info.Size())/1e6)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "create", "ix", "--hash-dims", "8", "--storage-root", "s3://bucket?region=eu-west-1&secret=hunter2")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "-tags objectstorage") || !strings.Contains(string(out), "s3://bucket") || strings.Contains(string(out), "hunter2") {
		t.Errorf("a bucket URL given to the default build: %v\n%s", err, out)
	}
}
