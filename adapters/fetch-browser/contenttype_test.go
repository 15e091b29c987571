package fetchbrowser

import "testing"

// Vectra's content-type rules, checked natively (the fetcher that uses
// them runs in the browser tests).
func TestContentTypeRules(t *testing.T) {
	tests := []struct {
		header, media string
		accepted      bool
		docType       string
		charset       string
	}{
		{"", "text/plain", true, "", "utf-8"},
		{"text/html; charset=ISO-8859-1", "text/html", true, "html", "iso-8859-1"},
		{" Text/Markdown ", "text/markdown", true, "md", "utf-8"},
		{"application/xml", "application/xml", true, "xml", "utf-8"},
		{"text/xml;charset=\"windows-1252\"", "text/xml", true, "xml", "windows-1252"},
		{"application/json-seq", "application/json-seq", true, "json", "utf-8"},
		{"application/javascript", "application/javascript", true, "js", "utf-8"},
		{"image/png", "image/png", false, "", "utf-8"},
		{"application/ld+json", "application/ld+json", false, "", "utf-8"},
	}
	for _, tt := range tests {
		mt := mediaType(tt.header)
		if mt != tt.media || accepted(mt) != tt.accepted || docTypeOf(mt) != tt.docType || charset(tt.header) != tt.charset {
			t.Errorf("%q: media %q accepted %v docType %q charset %q; want %q %v %q %q",
				tt.header, mt, accepted(mt), docTypeOf(mt), charset(tt.header), tt.media, tt.accepted, tt.docType, tt.charset)
		}
	}
	if !contains("text/html", "text/html") || contains("text/plain", "text/html") {
		t.Error("contains is not Vectra's includes")
	}
}
