package main

import "strings"

// hasPhrase reports whether msg holds one of phrases (lower case)
// between ASCII word boundaries, as the regular expression \b does,
// whatever its case. (Not the regexp package: it would add 50 KB to
// folio.wasm for two patterns.)
func hasPhrase(msg string, phrases ...string) bool {
	msg = strings.ToLower(msg)
	word := func(i int) bool {
		if i < 0 || i >= len(msg) {
			return false
		}
		c := msg[i]
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z'
	}
	for _, p := range phrases {
		for at := 0; ; {
			i := strings.Index(msg[at:], p)
			if i < 0 {
				break
			}
			i += at
			if !word(i-1) && !word(i+len(p)) {
				return true
			}
			at = i + 1
		}
	}
	return false
}
