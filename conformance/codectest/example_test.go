package codectest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// Check runs the suite outside `go test`: nil when the codec keeps every
// rule it is held to, otherwise one line per violation, naming the rule.
func ExampleCheck() {
	err := codectest.Check(context.Background(), func(testing.TB) core.IndexCodec { return reference.Codec{} }, refCaps)
	fmt.Println("reference codec:", err)

	noDot := broken{ext: func() string { return "json" }}
	err = codectest.Check(context.Background(), func(testing.TB) core.IndexCodec { return noDot }, refCaps)
	fmt.Println("codec without a dot:", err)
	// Output:
	// reference codec: <nil>
	// codec without a dot: codectest: extension is non-empty and starts with a dot: Extension() = "json", want a dot and at least one more character
}
