package fetchbrowser

import "strings"

// acceptedTypes are the media types a BrowserWebFetcher reads, as Vectra
// lists them; a response is read when its media type contains one.
var acceptedTypes = []string{
	"text/html", "application/json", "application/xml", "application/javascript",
	"text/plain", "text/markdown", "text/xml",
}

// docTypes map media types to the docType of their raw text, in Vectra's
// order: the first one the media type contains wins; text/plain has none.
var docTypes = []struct{ mime, docType string }{
	{"text/html", "html"},
	{"text/plain", ""},
	{"text/markdown", "md"},
	{"text/xml", "xml"},
	{"application/json", "json"},
	{"application/xml", "xml"},
	{"application/javascript", "js"},
}

// mediaType is the part of a Content-Type header before its first ";",
// trimmed and lowercased; a missing header is text/plain.
func mediaType(header string) string {
	if header == "" {
		return "text/plain"
	}
	mt, _, _ := strings.Cut(header, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// accepted reports whether a BrowserWebFetcher reads the media type mt.
func accepted(mt string) bool {
	for _, a := range acceptedTypes {
		if strings.Contains(mt, a) {
			return true
		}
	}
	return false
}

// docTypeOf is the docType of raw text of the media type mt.
func docTypeOf(mt string) string {
	for _, d := range docTypes {
		if strings.Contains(mt, d.mime) {
			return d.docType
		}
	}
	return ""
}

// contains reports whether the media type mt contains sub, Vectra's test.
func contains(mt, sub string) bool { return strings.Contains(mt, sub) }

// charset is the charset parameter of a Content-Type header, unquoted and
// lowercased, or "utf-8".
func charset(header string) string {
	_, params, _ := strings.Cut(header, ";")
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			if v = strings.Trim(strings.TrimSpace(v), `"'`); v != "" {
				return strings.ToLower(v)
			}
		}
	}
	return "utf-8"
}
