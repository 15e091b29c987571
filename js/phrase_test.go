package main

import (
	"regexp"
	"testing"
)

// hasPhrase matches as the regular expressions it replaces do.
func TestHasPhraseMatchesWordBoundaries(t *testing.T) {
	notFound := regexp.MustCompile(`(?i)\bnot found\b|\bno such file\b|\bdoes not exist\b`)
	for _, msg := range []string{
		"File not found: a/b", "NOT FOUND", "notfound", "cannot found", "not founded", "xnot found",
		"ENOENT: no such file or directory", "no such files", "_no such file", "it does not exist.",
		"does not exists", "", "İstanbul not found", "not found_", "(not found)", "1not found",
	} {
		if got, want := hasPhrase(msg, "not found", "no such file", "does not exist"), notFound.MatchString(msg); got != want {
			t.Errorf("hasPhrase(%q) = %v, the regular expression says %v", msg, got, want)
		}
	}
}
