package render

import (
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/docfields"
	"github.com/foliovec/folio/core/internal/testtok"
)

const structuredDoc = "---\ntitle: npm-link\ndescription: Symlink a package folder\n---\n\n" +
	"### Synopsis\n\n```bash\nnpm link [<package-spec>]\n\nalias: ln\n```\n\n" +
	"### Description\n\nThis is handy for installing your own stuff, so that you can work on it and test iteratively without having to continually rebuild.\n\n" +
	"### Configuration\n\n#### `save`\n\n* Default: true\n\nSave installed packages to a package.json file as dependencies, and links are made when you link packages.\n\n" +
	"#### `workspaces`\n\nSet to true to run the command in the context of all configured workspaces; commands that link workspaces link them into node_modules.\n\n" +
	"### See Also\n\n* [npm install](/commands/npm-install)\n* [package spec](/using-npm/package-spec)\n"

func structured(t *testing.T, doc, uri, query string, maxTokens int, chunks ...*Chunk) []Section {
	t.Helper()
	rd := New(NewText(doc), testtok.Char{})
	return rd.Structured(chunks, query, docfields.Parse(doc, uri), maxTokens, 2)
}

// A query naming the page gets its top: the usage line with the
// description under it, never the front matter, and the passage's
// headings.
func TestStructuredNamedQueryShowsTheSynopsis(t *testing.T) {
	c := placed(t, structuredDoc, "Set to true to run", 0.5)
	got := structured(t, structuredDoc, "commands/npm-link.md", "npm link", 260, c)
	if len(got) == 0 {
		t.Fatal("no passage")
	}
	p := got[0]
	if !strings.HasPrefix(p.Text, "### Synopsis") || !strings.Contains(p.Text, "npm link [<package-spec>]") || !strings.Contains(p.Text, "### Description") {
		t.Errorf("passage %q, want the synopsis with its description", p.Text)
	}
	if strings.Contains(p.Text, "title: npm-link") {
		t.Errorf("the front matter was shown: %q", p.Text)
	}
	if p.Headings != "" && p.Headings != "Synopsis" {
		t.Errorf("Headings %q", p.Headings)
	}
}

// A query about one option gets that option's section, its heading path
// with it, and the passage's score is that of the chunk in it.
func TestStructuredChoosesTheSectionAndNamesItsHeadings(t *testing.T) {
	in := placed(t, structuredDoc, "Set to true to run the command", 0.4)
	other := placed(t, structuredDoc, "This is handy", 0.1)
	got := structured(t, structuredDoc, "commands/npm-link.md", "run in the context of all workspaces", 170, in, other)
	if len(got) == 0 {
		t.Fatal("no passage")
	}
	p := got[0]
	if !strings.Contains(p.Text, "#### `workspaces`") {
		t.Errorf("passage %q, want the workspaces section", p.Text)
	}
	if p.Headings != "Configuration > workspaces" {
		t.Errorf("Headings %q, want %q", p.Headings, "Configuration > workspaces")
	}
	if p.Score != 0.4 {
		t.Errorf("Score %v, want the chunk in it's 0.4", p.Score)
	}
}

// A passage starts and ends at whole lines and never inside a code block,
// whatever the budget that holds the longest line.
func TestStructuredNeverCutsCodeBlocksOrLines(t *testing.T) {
	c := placed(t, structuredDoc, "npm link [<package", 0.5)
	for budget := 150; budget <= 400; budget += 7 {
		for _, p := range structured(t, structuredDoc, "commands/npm-link.md", "npm link alias", budget, c) {
			i := strings.Index(structuredDoc, p.Text)
			if i < 0 {
				t.Fatalf("budget %d: passage %q is not a cut of the text", budget, p.Text)
			}
			if i > 0 && structuredDoc[i-1] != '\n' || i+len(p.Text) < len(structuredDoc) && structuredDoc[i+len(p.Text)] != '\n' {
				t.Errorf("budget %d: passage %q starts or ends mid-line", budget, p.Text)
			}
			if strings.Count(p.Text, "```")%2 != 0 && len(p.Text) > 60 {
				t.Errorf("budget %d: passage %q cuts a code block", budget, p.Text)
			}
			if p.TokenCount > budget {
				t.Errorf("budget %d: %d tokens", budget, p.TokenCount)
			}
		}
	}
}

// reStructuredText: sections by underlined titles, a directive's body kept
// with it.
func TestStructuredReStructuredText(t *testing.T) {
	doc := "json --- JSON encoder\n=====================\n\nIntro text here.\n\nBasic Usage\n-----------\n\n.. function:: dump(obj, fp)\n\n   Serialize obj as a JSON formatted stream to fp.\n\nDecoders\n--------\n\n.. class:: JSONDecoder\n\n   Simple JSON decoder, for decoding text.\n"
	c := placed(t, doc, "Serialize obj", 0.3)
	got := structured(t, doc, "library/json.rst.txt", "serialize obj to a stream", 80, c)
	if len(got) == 0 || !strings.Contains(got[0].Text, ".. function:: dump(obj, fp)\n\n   Serialize obj") {
		t.Fatalf("passages %+v, want the function with its body", got)
	}
	if got[0].Headings != "json --- JSON encoder > Basic Usage > dump" {
		t.Errorf("Headings %q", got[0].Headings)
	}
}
