package bm25

import (
	"strings"
	"unicode"
)

// Tokens splits text into the terms the keyword index and keyword
// queries use: words (maximal runs of letters and digits; an apostrophe
// splits, so "don't" is "don" and "t"), lowercased, without English stop
// words, each ASCII-letter word reduced to its Porter stem. Words with
// digits or non-ASCII letters are kept whole. fn receives each term in
// order.
//
// Vectra tokenizes with wink-nlp and stems with its own stemmer, so terms
// (and scores) differ in detail; the contract — stop words out, stems
// matched — is the same.
func Tokens(text string, fn func(term string)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := strings.ToLower(text[start:end])
		start = -1
		if IsStopWord(word) {
			return
		}
		if isASCIILetters(word) {
			word = Stem(word)
		}
		fn(word)
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// IsStopWord reports whether w is one of NLTK's English stop words, or a
// fragment an apostrophe leaves ("don", "t", "ll", …).
func IsStopWord(w string) bool {
	switch w {
	case "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
		"yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it",
		"its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom",
		"this", "that", "these", "those", "am", "is", "are", "was", "were", "be", "been", "being",
		"have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but",
		"if", "or", "because", "as", "until", "while", "of", "at", "by", "for", "with", "about",
		"against", "between", "into", "through", "during", "before", "after", "above", "below", "to",
		"from", "up", "down", "in", "out", "on", "off", "over", "under", "again", "further", "then",
		"once", "here", "there", "when", "where", "why", "how", "all", "any", "both", "each", "few",
		"more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so", "than",
		"too", "very", "s", "t", "can", "will", "just", "don", "should", "now", "d", "ll", "m", "o",
		"re", "ve", "y", "ain", "aren", "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma",
		"mightn", "mustn", "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn":
		return true
	}
	return false
}
