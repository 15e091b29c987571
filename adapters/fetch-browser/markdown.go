package fetchbrowser

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/foliovec/folio/core/jsvalue"
)

// dropped are the elements removed before conversion, with their content.
var dropped = map[string]bool{"script": true, "style": true, "noscript": true, "iframe": true, "svg": true, "canvas": true}

// HTMLToMarkdown converts an HTML page to markdown as Vectra 0.15's
// BrowserWebFetcher does: the page is parsed as a browser's DOMParser
// parses it (with scripting off); <script>, <style>, <noscript>, <iframe>,
// <svg> and <canvas> are dropped; links whose href does not start with
// "http", "//" or "#" are made absolute against pageURL; then the <body> is
// walked: headings become "#" to "######" lines, paragraphs, <br> and <hr>
// ("---") break lines, links become [text](href), bold **text**, italics
// *text*, <code> `text`, <pre> a fenced block, <blockquote> "> " lines,
// the direct <li> of a list "- " or "1. " lines, tables "| a | b |" rows with
// a "| --- | --- |" row after the first, images ![alt](src) (alt "image"
// when empty). Text is trimmed, element text has its white space collapsed,
// runs of three or more line breaks become two and the result is trimmed.
// A frameset page has no text: its frames are other pages.
func HTMLToMarkdown(page, pageURL string) string {
	doc, err := html.ParseWithOptions(strings.NewReader(page), html.ParseOptionEnableScripting(false))
	if err != nil {
		return page // html.Parse fails only when reading fails, never for a string
	}
	removeDropped(doc)
	base, baseErr := url.Parse(pageURL)
	absoluteLinks(doc, base, baseErr == nil)
	body := findBody(doc)
	if body == nil {
		return page
	}
	var lines []string
	convert(body, &lines)
	out := strings.Join(lines, "\n")
	out = collapseBreaks(out)
	return strings.TrimFunc(out, jsvalue.IsSpace)
}

// removeDropped removes every dropped element and its subtree.
func removeDropped(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && dropped[c.Data] {
			n.RemoveChild(c)
		} else {
			removeDropped(c)
		}
		c = next
	}
}

// absoluteLinks rewrites the href of every <a> that does not start with
// "http", "//" or "#" to an absolute URL against base; an href that does not
// resolve stays as it is.
func absoluteLinks(n *html.Node, base *url.URL, haveBase bool) {
	if n.Type == html.ElementNode && n.Data == "a" && haveBase {
		for i, a := range n.Attr {
			if a.Namespace != "" || a.Key != "href" {
				continue
			}
			h := a.Val
			if h != "" && !strings.HasPrefix(h, "http") && !strings.HasPrefix(h, "//") && !strings.HasPrefix(h, "#") {
				if u, err := base.Parse(h); err == nil && u.IsAbs() {
					n.Attr[i].Val = u.String()
				}
			}
			break
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		absoluteLinks(c, base, haveBase)
	}
}

// findBody returns what the DOM's document.body is: the first child of
// the <html> element that is a <body> or a <frameset>.
func findBody(doc *html.Node) *html.Node {
	for h := doc.FirstChild; h != nil; h = h.NextSibling {
		if h.Type != html.ElementNode || h.Data != "html" {
			continue
		}
		for c := h.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "body" || c.Data == "frameset") {
				return c
			}
		}
	}
	return nil
}

// attr returns the value of the attribute key, and whether it is there.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textContent is the DOM's textContent: every descendant text node, in
// order.
func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				if !isTemplate(c) {
					walk(c)
				}
			}
		}
	}
	walk(n)
	return b.String()
}

// cleanText is an element's text with every run of white space made one
// space, trimmed.
func cleanText(n *html.Node) string {
	return strings.Join(strings.FieldsFunc(textContent(n), jsvalue.IsSpace), " ")
}

// convert appends the lines of n and its subtree.
func convert(n *html.Node, lines *[]string) {
	switch n.Type {
	case html.TextNode:
		if t := strings.TrimFunc(n.Data, jsvalue.IsSpace); t != "" {
			*lines = append(*lines, t)
		}
		return
	case html.ElementNode:
	default:
		return
	}
	add := func(ls ...string) { *lines = append(*lines, ls...) }
	switch tag := strings.ToLower(n.Data); tag {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		level := int(tag[1] - '0')
		add("", strings.Repeat("#", level)+" "+cleanText(n), "")
	case "p":
		add("")
		convertChildren(n, lines)
		add("")
	case "br":
		add("")
	case "hr":
		add("", "---", "")
	case "a":
		href, _ := attr(n, "href")
		text := cleanText(n)
		switch {
		case href != "" && text != "":
			add("[" + text + "](" + href + ")")
		case text != "":
			add(text)
		}
	case "strong", "b":
		add("**" + cleanText(n) + "**")
	case "em", "i":
		add("*" + cleanText(n) + "*")
	case "code":
		add("`" + cleanText(n) + "`")
	case "pre":
		add("", "```", cleanText(n), "```", "")
	case "blockquote":
		add("")
		// The text is collapsed to one line first, so this is one "> " line.
		for _, l := range strings.Split(cleanText(n), "\n") {
			add("> " + l)
		}
		add("")
	case "ul", "ol":
		add("")
		i := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Data != "li" {
				continue
			}
			i++
			prefix := "-"
			if tag == "ol" {
				prefix = strconv.Itoa(i) + "."
			}
			add(prefix + " " + cleanText(c))
		}
		add("")
	case "table":
		add("")
		convertTable(n, lines)
		add("")
	case "img":
		alt, _ := attr(n, "alt")
		if alt == "" {
			alt = "image"
		}
		if src, _ := attr(n, "src"); src != "" {
			add("![" + alt + "](" + src + ")")
		}
	case "template":
		// A template's content is no part of the document.
	default:
		convertChildren(n, lines)
	}
}

// isTemplate reports whether n is a <template>, whose content a DOM keeps
// apart from the document: no text, no rows, no children of it count.
func isTemplate(n *html.Node) bool {
	return n.Type == html.ElementNode && n.Data == "template" && n.Namespace == ""
}

func convertChildren(n *html.Node, lines *[]string) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		convert(c, lines)
	}
}

// convertTable appends a row per <tr> below table (nested tables' rows
// too, as querySelectorAll finds them), each with every <th> and <td>
// below it, and a separator row after the first.
func convertTable(table *html.Node, lines *[]string) {
	first := true
	for _, row := range descendants(table, "tr") {
		var cells []string
		for _, cell := range descendants(row, "th", "td") {
			cells = append(cells, cleanText(cell))
		}
		if len(cells) == 0 {
			continue
		}
		*lines = append(*lines, "| "+strings.Join(cells, " | ")+" |")
		if first {
			sep := strings.Repeat("--- | ", len(cells))
			*lines = append(*lines, "| "+sep[:len(sep)-3]+" |")
			first = false
		}
	}
}

// descendants returns the elements below n named one of tags, in document
// order.
func descendants(n *html.Node, tags ...string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || isTemplate(c) {
				continue
			}
			for _, t := range tags {
				if c.Data == t {
					out = append(out, c)
					break
				}
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// collapseBreaks replaces every run of three or more line breaks with two.
func collapseBreaks(s string) string {
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			run++
			if run <= 2 {
				b.WriteByte('\n')
			}
			continue
		}
		run = 0
		b.WriteByte(s[i])
	}
	return b.String()
}
