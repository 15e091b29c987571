package fetch

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/foliovec/folio/core/jsvalue"
)

// FuzzHTMLToMarkdown: any page, however broken, converts without a panic
// to valid UTF-8 holding none of its <script> text.
func FuzzHTMLToMarkdown(f *testing.F) {
	for _, seed := range []string{
		"",
		"<p>plain</p>",
		"<table><tr><td align=right>1<td>2<tr><th>h</table>",
		"<ul><li><ol><li>deep<ul><li>deeper",
		"<a href='../../x'>up</a><a href='javascript:alert(1)'>js</a><a href=':::'>bad</a>",
		"<script>SCRIPTTEXT</script><p>after</p><script>SCRIPTTEXT",
		"<body><body><html><p>nested</p></html>",
		"<pre><code>code\n\n\nblock</code></pre><hr><hr>",
		strings.Repeat("<div>", 500) + "deep" + strings.Repeat("</div>", 500),
		"\xff\xfe<p>\xc3(</p>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, page string) {
		md, err := htmlToMarkdown(context.Background(), jsvalue.DecodeUTF8([]byte(page)), "http://127.0.0.1/dir/page.html", true)
		if err != nil {
			return // the converter may refuse a page; it must not panic
		}
		if !utf8.ValidString(md) {
			t.Fatalf("invalid UTF-8 out of %q: %q", page, md)
		}
		if strings.Contains(md, "SCRIPTTEXT") && !strings.Contains(strings.ReplaceAll(page, "<script>SCRIPTTEXT", ""), "SCRIPTTEXT") {
			t.Fatalf("script text kept from %q: %q", page, md)
		}
	})
}

// FuzzDecodeText: any body under any content type decodes to valid UTF-8.
func FuzzDecodeText(f *testing.F) {
	for _, seed := range []struct{ body, ct string }{
		{"plain", "text/plain"},
		{"caf\xe9", "text/html; charset=iso-8859-1"},
		{"<meta charset=shift_jis>\x93\xfa", "text/html"},
		{"\xfe\xff\x00h\x00i", "text/plain"},
		{"\xef\xbb\xbfbom", "text/plain; charset=utf-16"},
		{"x", "text/plain; charset=no-such-charset"},
		{"\xc3(", "application/json; charset="},
	} {
		f.Add(seed.body, seed.ct)
	}
	f.Fuzz(func(t *testing.T, body, contentType string) {
		text, err := decodeText([]byte(body), contentType)
		if err == nil && !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 out of %q (%q): %q", body, contentType, text)
		}
	})
}
