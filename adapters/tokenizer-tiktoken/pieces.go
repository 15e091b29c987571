package tokenizertiktoken

import (
	"unicode"
	"unicode/utf8"

	"github.com/foliovec/folio/core/jsvalue"
)

// Byte-pair encoding takes time quadratic in the length of a pre-token,
// and o200k_base's pre-tokenizer makes one pre-token of a whole run of
// letters, of white space or of punctuation: a 100 KB run of one letter
// took 11 s, 150 KB 40 s. So runs of one character class longer than
// MaxRunBytes are cut into pieces of at most MaxRunBytes, each encoded on
// its own: the work per byte is bounded and the whole encoding linear.
// Text without such a run (ordinary prose and code: o200k_base's longest
// token is far shorter) is encoded exactly as before; inside a longer run
// the ids can differ from an uncut encoding, usually by a token or two per
// piece. Decoding still gives back the text.

// MaxRunBytes is the longest run of letters, digits, white space or other
// characters that Encode treats as one pre-token.
const MaxRunBytes = 128

// blockBytes is about how much text EncodeContext encodes between two
// looks at its context.
const blockBytes = 64 << 10

// class is a character class whose runs o200k_base's pre-tokenizer keeps
// together.
type class uint8

const (
	classOther class = iota
	classLetter
	classDigit
	classSpace
)

func classOf(r rune) class {
	switch {
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return classLetter
	case unicode.IsNumber(r):
		return classDigit
	case jsvalue.IsSpace(r):
		return classSpace
	}
	return classOther
}

// eachPiece calls f with consecutive pieces of text that together are text:
// cut inside runs of one class longer than MaxRunBytes, and, when blocks is
// set, also after a line break that ends a white-space run (the next
// character starts a new pre-token, so the encoding does not change) once
// a piece holds blockBytes. f returning false stops the walk.
func eachPiece(text string, blocks bool, f func(string) bool) bool {
	start, runStart := 0, 0
	runClass := class(255)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		c := classOf(r)
		switch {
		case c != runClass:
			if blocks && i-start >= blockBytes && runClass == classSpace && (text[i-1] == '\n' || text[i-1] == '\r') {
				if !f(text[start:i]) {
					return false
				}
				start = i
			}
			runClass, runStart = c, i
		case i+size-runStart > MaxRunBytes:
			if !f(text[start:i]) {
				return false
			}
			start, runStart = i, i
		}
		i += size
	}
	return f(text[start:])
}
