package fetchbrowser_test

import (
	"testing"

	"github.com/foliovec/folio/adapters/fetch-browser"
)

// The rules of Vectra 0.15's BrowserWebFetcher.htmlToMarkdown, one case each.
func TestHTMLToMarkdown(t *testing.T) {
	const page = "https://example.com/docs/page.html"
	tests := []struct {
		name, html, want string
	}{
		{"headings are # lines with collapsed text",
			"<h1>Title  <b>one</b></h1><h3>\n Three </h3><h6>six</h6>",
			"# Title one\n\n### Three\n\n###### six"},
		{"paragraph text is trimmed, one line per text node",
			"<p>  first part <span>second</span>\n</p><p>next</p>",
			"first part\nsecond\n\nnext"},
		{"script, style, noscript, iframe, svg and canvas are dropped",
			"<p>kept</p><script>x()</script><style>p{}</style><noscript>ns</noscript><iframe>if</iframe><svg><text>sv</text></svg><canvas>cv</canvas>",
			"kept"},
		{"relative links become absolute; http, // and # links stay",
			`<a href="../a.html">up</a><a href="/root">root</a><a href="http://x.org/">abs</a><a href="//cdn.org/x">proto</a><a href="#top">frag</a>`,
			"[up](https://example.com/a.html)\n[root](https://example.com/root)\n[abs](http://x.org/)\n[proto](//cdn.org/x)\n[frag](#top)"},
		{"a link without href or text",
			`<a>plain</a><a href="x.html"></a>`,
			"plain"},
		{"bold, italics and code",
			"<b>b</b><strong>s</strong><i>i</i><em>e</em><code>c  d</code>",
			"**b**\n**s**\n*i*\n*e*\n`c d`"},
		{"pre is fenced with its text collapsed",
			"<pre>a\n  b</pre>",
			"```\na b\n```"},
		{"blockquote is one > line",
			"<blockquote><p>one</p><p>two</p></blockquote>",
			"> onetwo"},
		{"lists take their direct items",
			"<ul><li>a</li><li>b <ul><li>nested</li></ul></li></ul><ol><li>x</li><li>y</li></ol>",
			"- a\n- b nested\n\n1. x\n2. y"},
		{"tables get a separator after the first row",
			"<table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td> b  c </td></tr></table>",
			"| h1 | h2 |\n| --- | --- |\n| a | b c |"},
		{"images with alt, or image when alt is empty; no src, no line",
			`<img src="a.png" alt="A"><img src="b.png"><img alt="none">`,
			"![A](a.png)\n![image](b.png)"},
		{"br and hr",
			"one<br>two<hr>three",
			"one\n\ntwo\n\n---\n\nthree"},
		{"three or more line breaks become two",
			"<p>a</p><p></p><p></p><p>b</p>",
			"a\n\nb"},
		{"a template's content is no part of the page",
			"<p>a</p><template><p>hidden</p></template>",
			"a"},
		{"text outside elements of the body",
			"just text",
			"just text"},
		{"a frameset page has no text",
			"<frameset><frame src=a.html></frameset>",
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fetchbrowser.HTMLToMarkdown(tt.html, page); got != tt.want {
				t.Errorf("HTMLToMarkdown(%q)\n got %q\nwant %q", tt.html, got, tt.want)
			}
		})
	}
}

func FuzzHTMLToMarkdown(f *testing.F) {
	for _, s := range []string{
		"<h1>x</h1><p>y <a href='z'>w</a></p>",
		"<table><tr><td><table><tr><td>n</td></tr></table></td></tr></table>",
		"<ul><li><ol><li>a</li></ol></li></ul><pre>p</pre><blockquote>q</blockquote>",
		"<frameset></frameset>", "<svg><a href=x>y</a></svg>", "\xff<p>\x00</p>",
	} {
		f.Add(s, "https://example.com/a/b")
	}
	f.Fuzz(func(t *testing.T, page, base string) {
		got := fetchbrowser.HTMLToMarkdown(page, base)
		if again := fetchbrowser.HTMLToMarkdown(page, base); again != got {
			t.Fatalf("HTMLToMarkdown is not deterministic: %q then %q", got, again)
		}
	})
}
