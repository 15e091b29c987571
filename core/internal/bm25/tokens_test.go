package bm25

import (
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"stop words go, words are stemmed", "I don't like complicated tokens!", []string{"like", "complic", "token"}},
		{"case folds", "Vector VECTORS vectored", []string{"vector", "vector", "vector"}},
		{"digits and non-ASCII words stay whole", "café 2024 東京 naïve", []string{"café", "2024", "東京", "naïve"}},
		{"punctuation separates", "key-value,pairs;ok", []string{"kei", "valu", "pair", "ok"}},
		{"nothing but stop words", "the and of", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			Tokens(tt.text, func(term string) { got = append(got, term) })
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Tokens(%q) = %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"I don't like complicated tokens!", "café ☕ 東京", "", "a'b'c", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Tokens(s, func(term string) {
			if term == "" || IsStopWord(term) && term != Stem(term) {
				t.Fatalf("bad term %q from %q", term, s)
			}
		})
	})
}
