package docfields

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestParseMarkdown(t *testing.T) {
	text := "---\ntitle: npm-link\ndescription: Symlink a package folder\n---\n\n### Synopsis\n\n```bash\n# not a heading\nnpm link\n```\n\n### Description\n\nText.\n\n#### `workspaces`\n\nMore.\n"
	f := Parse(text, "commands/npm-link.md")
	if f.Title != "npm-link" || f.Description != "Symlink a package folder" {
		t.Errorf("title %q, description %q", f.Title, f.Description)
	}
	if f.Name != "commands npm link md" {
		t.Errorf("name %q", f.Name)
	}
	var heads []string
	for _, h := range f.Headings {
		heads = append(heads, h.Text)
		if got := text[h.Byte:h.ByteEnd]; !strings.Contains(got, h.Text) {
			t.Errorf("heading %q at bytes %q", h.Text, got)
		}
	}
	if want := []string{"Synopsis", "Description", "workspaces"}; !slices.Equal(heads, want) {
		t.Errorf("headings %q, want %q (a # line in a code block is none)", heads, want)
	}
	at := strings.Index(text, "More.")
	if got := f.Path(at); !slices.Equal(got, []string{"Description", "workspaces"}) {
		t.Errorf("Path at More. = %q", got)
	}
}

func TestParseReStructuredText(t *testing.T) {
	text := ":mod:`json` --- JSON encoder and decoder\n=======================================\n\n.. module:: json\n   :synopsis: Encode and decode the JSON format.\n\nBasic Usage\n-----------\n\n.. function:: dump(obj, fp)\n\nEncoders\n--------\n\nText.\n"
	f := Parse(text, "library/json.rst.txt")
	if f.Title != "json --- JSON encoder and decoder" {
		t.Errorf("title %q", f.Title)
	}
	if f.Description != "Encode and decode the JSON format." {
		t.Errorf("description %q", f.Description)
	}
	if got := f.Path(strings.Index(text, "Text.")); !slices.Equal(got, []string{"json --- JSON encoder and decoder", "Encoders"}) {
		t.Errorf("Path = %q", got)
	}
	// An object description is a heading below the sections, named by
	// the object.
	if got := f.Path(strings.Index(text, "Encoders") - 2); !slices.Equal(got, []string{"json --- JSON encoder and decoder", "Basic Usage", "dump"}) {
		t.Errorf("Path in dump's description = %q", got)
	}
}

func TestParseHTML(t *testing.T) {
	text := `<html><head><title>Serve &amp; Mux</title><meta name="description" content="HTTP routing"></head><body><h1>ServeMux</h1><p>x</p><h2 id="a">Patterns</h2><p>y</p></body></html>`
	f := Parse(text, "https://example.com/pkg/net/http/")
	if f.Title != "Serve & Mux" || f.Description != "HTTP routing" {
		t.Errorf("title %q, description %q", f.Title, f.Description)
	}
	if got := f.Path(strings.Index(text, "<p>y")); !slices.Equal(got, []string{"ServeMux", "Patterns"}) {
		t.Errorf("Path = %q", got)
	}
	if f.Name != "net http" {
		t.Errorf("name %q, want the URL's last two segments", f.Name)
	}
}

func TestTitleFallbacks(t *testing.T) {
	if f := Parse("# Top\n\n## Below\n", "a.md"); f.Title != "Top" {
		t.Errorf("first top heading: title %q", f.Title)
	}
	if f := Parse("just text\n", "dir/notes.txt"); f.Title != "notes" {
		t.Errorf("file name: title %q", f.Title)
	}
	if f := Parse("---\ntitle: never closed\n", "x.md"); f.Title == "never closed" {
		t.Errorf("front matter without its end counted: %+v", f)
	}
}

func TestWordsSplitsNames(t *testing.T) {
	if got := Words("ServeMux npm-link os.path"); !slices.Equal(got, []string{"Serve", "Mux", "npm", "link", "os", "path"}) {
		t.Errorf("Words = %q", got)
	}
}

// FuzzParse: any text parses without a panic, into headings in order,
// inside the text, whose UTF-16 and byte positions agree.
func FuzzParse(f *testing.F) {
	f.Add("---\ntitle: t\n---\n# a\n\nb\n===\n\n<h2>c</h2>\n```\n# d\n```\n", "x.md")
	f.Add("Title\n=====\n\n:synopsis: s\n", "y.rst")
	f.Add("<title>x</title><h1>é😀</h1>", "z.html")
	f.Fuzz(func(t *testing.T, text, uri string) {
		fs := Parse(text, uri)
		last := -1
		for _, h := range fs.Headings {
			if h.Byte < last || h.Byte > h.ByteEnd || h.ByteEnd > len(text) {
				t.Fatalf("heading %+v out of order or outside the text (%d bytes)", h, len(text))
			}
			last = h.Byte
			if u := len(utf16.Encode([]rune(text[:h.Byte]))); u != h.Start {
				t.Fatalf("heading %+v: byte %d is UTF-16 unit %d", h, h.Byte, u)
			}
		}
		fs.Path(len(text))
	})
}

func TestBodyFollowsTheFrontMatter(t *testing.T) {
	text := "---\ntitle: t\n---\n# Body\n"
	if f := Parse(text, "a.md"); text[f.Body:] != "# Body\n" {
		t.Errorf("Body %d: %q", f.Body, text[f.Body:])
	}
	if f := Parse("# No front matter\n", "a.md"); f.Body != 0 {
		t.Errorf("Body %d, want 0", f.Body)
	}
}
