package fetchtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/foliovec/folio/conformance/fetchtest"
)

// echoFetcher serves "echo:<text>" as one document whose text is <text>,
// with its invalid UTF-8 replaced. It follows every rule but Collections.
type echoFetcher struct{}

func (echoFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	text, ok := strings.CutPrefix(uri, "echo:")
	if !ok {
		return false, fmt.Errorf("echo: not an echo uri: %q", uri)
	}
	return onDocument(ctx, uri, strings.ToValidUTF8(text, "\uFFFD"), "txt")
}

func ExampleCheck() {
	newHarness := func(testing.TB) fetchtest.Harness {
		return fetchtest.Harness{
			Fetcher: echoFetcher{},
			Publish: func(t testing.TB, texts []string) (string, []fetchtest.Document) {
				uri := "echo:" + texts[0]
				return uri, []fetchtest.Document{{URI: uri, Text: texts[0], DocType: "txt"}}
			},
			Unreadable: func(testing.TB) []string { return []string{"http://example.com/"} },
		}
	}
	fmt.Println(fetchtest.Check(context.Background(), newHarness, fetchtest.Capabilities{}))
	// Output:
	// <nil>
}
