package testkit_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/testkit"
)

const childEnv = "TESTKIT_CHILD"

// TestMain runs the child's side of TestChild when childEnv is set.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "sleep":
		fmt.Println("ready")
		fmt.Println("working")
		time.Sleep(time.Minute)
	case "exit":
		fmt.Println("ready")
		fmt.Println("done")
	case "fail":
		fmt.Println("ready")
		fmt.Fprintln(os.Stderr, "it broke")
		os.Exit(3)
	default:
		fmt.Println("not ready")
	}
	os.Exit(0)
}

func TestChild(t *testing.T) {
	c, err := testkit.StartChild(t.Context(), childEnv+"=sleep")
	if err != nil {
		t.Fatal(err)
	}
	if line, err := c.Stdout.ReadString('\n'); line != "working\n" || err != nil {
		t.Errorf("after ready: %q, %v", line, err)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitKilled(); err != nil {
		t.Errorf("WaitKilled of a killed child = %v", err)
	}

	c, err = testkit.StartChild(t.Context(), childEnv+"=exit")
	if err != nil {
		t.Fatal(err)
	}
	c.Stdout.ReadString(0)
	if err := c.WaitKilled(); err == nil || !strings.Contains(err.Error(), "ended by itself") {
		t.Errorf("WaitKilled of a child that exited = %v, want an error", err)
	}

	c, err = testkit.StartChild(t.Context(), childEnv+"=fail")
	if err != nil {
		t.Fatal(err)
	}
	c.Stdout.ReadString(0)
	if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "it broke") {
		t.Errorf("Wait of a failing child = %v, want its error with its stderr", err)
	}

	if _, err := testkit.StartChild(t.Context(), childEnv+"=other"); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("a child that never says ready: %v", err)
	}
}
