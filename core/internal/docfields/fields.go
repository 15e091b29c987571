// Package docfields finds the fields of a document that ranking weighs
// besides its text: its title, the words of its name, and its headings
// with where each starts, in Markdown (ATX and setext headings, YAML front
// matter), reStructuredText (underlined and overlined titles) and HTML
// (<title>, <h1>…<h6>). It reads what it is given and nothing else; the
// same text and name always give the same fields.
//
// # Concurrency
//
// Fields are immutable once Parse returns them and safe to share.
package docfields

import (
	"html"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Heading is one heading of a document.
type Heading struct {
	// Start is where the heading's line starts, in UTF-16 code units
	// from the start of the text (the unit of chunk positions), and Byte
	// the same place in bytes.
	Start, Byte int
	// End and ByteEnd are where the heading's lines end (its underline
	// too, and the line break), in UTF-16 units and in bytes.
	End, ByteEnd int
	// Level is 1 for the top level. ATX headings ("## x") have their
	// number of #; underlined headings are numbered by the order in
	// which their styles first appear, after the ATX levels in use; HTML
	// headings have their h-number.
	Level int
	Text  string
}

// Fields are a document's fields.
type Fields struct {
	// Title is the document's title: its front matter's title, else its
	// HTML <title>, else its first heading of the top level in use, else
	// its name without its extension.
	Title string
	// Description is what the document says it is about: its front
	// matter's description, its HTML <meta name="description">, or a
	// reStructuredText module's :synopsis:; "" when none.
	Description string
	// Name is the words of the document's name: its file name and the
	// folder holding it ("commands/npm-link.md" is "commands npm link
	// md"), for a URL the last two segments of its path.
	Name string
	// Headings are the document's headings, in order.
	Headings []Heading
	// Body is where the text after its YAML front matter starts, in
	// bytes: 0 when it has none (and for HTML).
	Body int
}

// Parse returns the fields of the document text named uri (a file path or
// a URL; its extension tells HTML from the rest when the text does not).
func Parse(text, uri string) *Fields {
	f := &Fields{Name: nameWords(uri)}
	var title string
	if isHTML(text, uri) {
		title = f.parseHTML(text)
		if m := htmlDescription.FindStringSubmatch(text); m != nil {
			f.Description = cleanHTML(m[1])
		}
	} else {
		title = f.parseText(text)
		if f.Description == "" {
			if m := rstSynopsis.FindStringSubmatch(text); m != nil {
				f.Description = strings.TrimSpace(m[1])
			}
		}
	}
	switch {
	case title != "":
		f.Title = title
	case len(f.Headings) > 0:
		top := f.Headings[0].Level
		for _, h := range f.Headings {
			top = min(top, h.Level)
		}
		for _, h := range f.Headings {
			if h.Level == top {
				f.Title = h.Text
				break
			}
		}
	default:
		base := path.Base(strings.ReplaceAll(uriPath(uri), `\`, "/"))
		f.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	return f
}

// Path returns the texts of the headings in effect at pos (UTF-16 units):
// the last heading of each level before pos, and each of the levels above
// it, outermost first; a heading that starts at pos counts.
func (f *Fields) Path(pos int) []string {
	var chain []Heading
	for _, h := range f.Headings {
		if h.Start > pos {
			break
		}
		for len(chain) > 0 && chain[len(chain)-1].Level >= h.Level {
			chain = chain[:len(chain)-1]
		}
		chain = append(chain, h)
	}
	out := make([]string, len(chain))
	for i, h := range chain {
		out[i] = h.Text
	}
	return out
}

// Within returns the texts of the headings that start in [start, end)
// (UTF-16 units).
func (f *Fields) Within(start, end int) []string {
	var out []string
	for _, h := range f.Headings {
		if h.Start >= start && h.Start < end {
			out = append(out, h.Text)
		}
	}
	return out
}

// uriPath is the path of a URL, or uri itself.
func uriPath(uri string) string {
	if i := strings.Index(uri, "://"); i > 0 && !strings.ContainsAny(uri[:i], `/\`) {
		rest := uri[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[j:]
		} else {
			rest = ""
		}
		rest, _, _ = strings.Cut(rest, "?")
		rest, _, _ = strings.Cut(rest, "#")
		return rest
	}
	return uri
}

// nameWords is the words of uri's last two path segments.
func nameWords(uri string) string {
	p := strings.Trim(strings.ReplaceAll(uriPath(uri), `\`, "/"), "/")
	segs := strings.Split(p, "/")
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	return strings.Join(Words(strings.Join(segs, " ")), " ")
}

// fileExtensions are the extensions FileWords drops.
var fileExtensions = map[string]bool{"md": true, "markdown": true, "mdx": true, "txt": true, "rst": true, "adoc": true,
	"html": true, "htm": true, "go": true, "py": true, "js": true, "ts": true}

// FileWords is the words of the file name of uri, lower case, without its
// extensions ("commands/npm-link.md" is "npm link", "library/os.path.rst.txt"
// is "os path"): what a query that names the file says.
func FileWords(uri string) []string {
	p := strings.TrimRight(strings.ReplaceAll(uriPath(uri), `\`, "/"), "/")
	ws := Words(strings.ToLower(path.Base(p)))
	for len(ws) > 1 && fileExtensions[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	return ws
}

// Words splits s into words: runs of letters and digits, also split where
// a lower-case letter meets an upper-case one ("ServeMux" is "Serve" and
// "Mux"), so that a name's parts match the words of a query.
func Words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			prev = 0
			continue
		}
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			flush()
		}
		cur = append(cur, r)
		prev = r
	}
	flush()
	return out
}

func isHTML(text, uri string) bool {
	switch strings.ToLower(path.Ext(uriPath(uri))) {
	case ".html", ".htm", ".xhtml":
		return true
	}
	head := strings.ToLower(strings.TrimSpace(text[:min(len(text), 512)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

var (
	htmlTitle   = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlHeading = regexp.MustCompile(`(?is)<h([1-6])[^>]*>(.*?)</h[1-6]>`)
	htmlTag     = regexp.MustCompile(`(?s)<[^>]*>`)
	// htmlDescription is a <meta name="description" content="...">.
	htmlDescription = regexp.MustCompile(`(?is)<meta\s+name\s*=\s*["']description["']\s+content\s*=\s*["']([^"']*)["']`)
	// rstSynopsis is a reStructuredText module directive's :synopsis:.
	rstSynopsis = regexp.MustCompile(`(?m)^\s+:synopsis:[ \t]*(.+)$`)
)

// parseHTML finds an HTML text's headings and returns its <title>.
func (f *Fields) parseHTML(text string) string {
	units := unitCounter{s: text}
	for _, m := range htmlHeading.FindAllStringSubmatchIndex(text, -1) {
		t := cleanHTML(text[m[4]:m[5]])
		if t == "" {
			continue
		}
		f.Headings = append(f.Headings, Heading{Start: units.at(m[0]), Byte: m[0], End: units.at(m[1]), ByteEnd: m[1], Level: int(text[m[2]] - '0'), Text: t})
	}
	if m := htmlTitle.FindStringSubmatch(text); m != nil {
		return cleanHTML(m[1])
	}
	return ""
}

func cleanHTML(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(htmlTag.ReplaceAllString(s, " "))), " ")
}

// unitCounter turns byte offsets into UTF-16 offsets, for increasing
// offsets in one pass.
type unitCounter struct {
	s         string
	byte, u16 int
}

func (c *unitCounter) at(b int) int {
	for c.byte < b && c.byte < len(c.s) {
		r, size := utf8.DecodeRuneInString(c.s[c.byte:])
		c.byte += size
		if utf16.RuneLen(r) == 2 {
			c.u16 += 2
		} else {
			c.u16++
		}
	}
	return c.u16
}

var (
	atx      = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$`)
	fence    = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	rstRole  = regexp.MustCompile("(?::[a-zA-Z:+-]+:)?`([^`]*)`_?_?")
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emphasis = regexp.MustCompile(`(\*\*|__|\*|_)([^*_]+)(\*\*|__|\*|_)`)
	// rstObject is a reStructuredText (Sphinx) object description's
	// first line: its indent, its kind and its signature.
	rstObject = regexp.MustCompile(`^( *)\.\. (?:py:)?(function|class|method|classmethod|staticmethod|attribute|data|exception|decorator|decoratormethod|coroutinefunction|coroutinemethod|abstractmethod|envvar|option|cmdoption|describe)::[ \t]+(.+?)[ \t\\]*$`)
)

// ObjectLevel is the level of a reStructuredText object description at
// the margin (a function's, a class's): below any section's. Passages do
// not cut sections at them; keyword ranking reads them as headings.
const ObjectLevel = 20

// adornment reports whether line is a reStructuredText or setext
// underline: one punctuation character repeated, at least twice, and that
// character.
func adornment(line string) (byte, bool) {
	line = strings.TrimRight(line, " \t\r")
	if len(line) < 2 {
		return 0, false
	}
	c := line[0]
	if !strings.ContainsRune("=-`:'\"~^_*+#<>.", rune(c)) {
		return 0, false
	}
	for i := 1; i < len(line); i++ {
		if line[i] != c {
			return 0, false
		}
	}
	return c, true
}

// style is an underline's character and whether the title has the same
// line above it too.
type style struct {
	c    byte
	over bool
}

// parseText finds a Markdown or reStructuredText text's headings and
// returns its front matter's title.
func (f *Fields) parseText(text string) string {
	lines := splitLines(text)
	var title string
	start := 0
	if len(lines) > 0 && strings.TrimRight(lines[0].s, " \t\r") == "---" {
		for i := 1; i < len(lines); i++ {
			l := strings.TrimRight(lines[i].s, " \t\r")
			if l == "---" || l == "..." {
				start = i + 1
				break
			}
			if v, ok := strings.CutPrefix(l, "title:"); ok && title == "" {
				title = strings.Trim(strings.TrimSpace(v), `"'`)
			}
			if v, ok := strings.CutPrefix(l, "description:"); ok && f.Description == "" {
				f.Description = strings.Trim(strings.TrimSpace(v), `"'`)
			}
		}
		if start == 0 {
			title, f.Description = "", "" // no end to the front matter: it is none
		} else if start < len(lines) {
			f.Body = lines[start].byte
		} else {
			f.Body = len(text)
		}
	}
	atxLevels := map[int]bool{}
	for _, l := range lines {
		if m := atx.FindStringSubmatch(l.s); m != nil {
			atxLevels[len(m[1])] = true
		}
	}
	var styles []style
	levelOf := func(s style) int {
		i := slices.Index(styles, s)
		if i < 0 {
			styles = append(styles, s)
			i = len(styles) - 1
		}
		return len(atxLevels) + i + 1
	}
	inFence := ""
	for i := start; i < len(lines); i++ {
		l := lines[i]
		if m := fence.FindStringSubmatch(l.s); m != nil {
			switch {
			case inFence == "":
				inFence = m[1][:1]
			case strings.HasPrefix(m[1], inFence):
				inFence = ""
			}
			continue
		}
		if inFence != "" {
			continue
		}
		if m := rstObject.FindStringSubmatch(l.s); m != nil {
			// A reStructuredText description of an object (Sphinx's
			// function, class, method...): a heading below every section,
			// deeper as it is indented (a class's methods), named by the
			// object; its signature's continued lines are part of it.
			end := i
			for end+1 < len(lines) && strings.HasSuffix(strings.TrimRight(lines[end].s, " \t\r"), `\`) {
				end++
			}
			name, _, _ := strings.Cut(m[3], "(")
			if t := clean(name); t != "" {
				last := lines[end]
				f.Headings = append(f.Headings, Heading{Start: l.u16, Byte: l.byte, End: last.u16 + last.units, ByteEnd: last.byte + last.bytes, Level: ObjectLevel + len(m[1]), Text: t})
			}
			i = end
			continue
		}
		if m := atx.FindStringSubmatch(l.s); m != nil {
			if t := clean(m[2]); t != "" {
				f.Headings = append(f.Headings, Heading{Start: l.u16, Byte: l.byte, End: l.u16 + l.units, ByteEnd: l.byte + l.bytes, Level: len(m[1]), Text: t})
			}
			continue
		}
		t := strings.TrimSpace(l.s)
		if t == "" || i+1 >= len(lines) || l.s[0] == ' ' || l.s[0] == '\t' {
			continue
		}
		c, ok := adornment(lines[i+1].s)
		if !ok || len(strings.TrimRight(lines[i+1].s, " \t\r")) < min(utf8.RuneCountInString(t), 3) {
			continue
		}
		if _, isRule := adornment(l.s); isRule {
			continue // two rules in a row: no title between
		}
		over := i > 0 && strings.TrimRight(lines[i-1].s, " \t\r") == strings.TrimRight(lines[i+1].s, " \t\r")
		from := l
		if over {
			from = lines[i-1]
		}
		if ct := clean(t); ct != "" {
			next := lines[i+1]
			f.Headings = append(f.Headings, Heading{Start: from.u16, Byte: from.byte, End: next.u16 + next.units, ByteEnd: next.byte + next.bytes, Level: levelOf(style{c, over}), Text: ct})
		}
		i++ // the underline
	}
	return clean(title)
}

// clean strips a heading's inline markup: Markdown links, emphasis and code
// spans, reStructuredText roles and targets, HTML entities.
func clean(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = rstRole.ReplaceAllString(s, "$1")
	s = emphasis.ReplaceAllString(s, "$2")
	s = html.UnescapeString(strings.ReplaceAll(s, "`", ""))
	return strings.Join(strings.Fields(s), " ")
}

// line is one line of a text: its content without the line break, and
// where it starts, in bytes and UTF-16 units, and its length in units.
type line struct {
	s                       string
	byte, bytes, u16, units int // bytes and units count the line break
}

func splitLines(text string) []line {
	var out []line
	u := 0
	for b := 0; b < len(text); {
		end := strings.IndexByte(text[b:], '\n')
		next := len(text)
		if end >= 0 {
			next = b + end + 1
			end += b
		} else {
			end = len(text)
		}
		s := strings.TrimSuffix(text[b:end], "\r")
		n := 0
		for _, r := range text[b:next] {
			if utf16.RuneLen(r) == 2 {
				n += 2
			} else {
				n++
			}
		}
		out = append(out, line{s: s, byte: b, bytes: next - b, u16: u, units: n})
		u += n
		b = next
	}
	return out
}
