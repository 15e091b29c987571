package bm25

import "math"

// Okapi BM25 parameters, wink-bm25-text-search's defaults (Vectra's).
const (
	K1 = 1.2
	B  = 0.75
)

// IDF is the inverse document frequency of a term found in df of n
// chunks: ln((n − df + 0.5) / (df + 0.5) + 1), never negative.
func IDF(n, df float64) float64 { return math.Log((n-df+0.5)/(df+0.5) + 1) }

// Score is the BM25 score of a term occurring tf times in a chunk of dl
// terms, where chunks average avgdl terms and the term's IDF is idf.
func Score(idf, tf, dl, avgdl float64) float64 {
	norm := 1 - B
	if avgdl > 0 {
		norm += B * dl / avgdl
	}
	return idf * tf * (K1 + 1) / (tf + K1*norm)
}
