package split

import (
	"strings"
	"unicode/utf8"

	"github.com/foliovec/folio/core/jsvalue"
)

// tokenWindows cuts text, whose tokens are tokens, into consecutive windows
// of at most ChunkSize tokens, as the text each window decodes to.
//
// When the windows decode to consecutive pieces of text (a lossless
// tokenizer), each window is that piece of text with its end moved back to
// the start of a character it cuts, so that the character belongs to the
// window where it ends, as with Vectra's tokenizer (whose decoder holds a
// cut character's first bytes until the next window); a window inside one
// character is empty and left out. The windows then concatenate to text
// exactly, and positions computed from their lengths never drift.
// Otherwise the rest of the windows are their decoded text, as in Vectra.
func (s *Splitter) tokenWindows(text string, tokens []int) []string {
	size := s.cfg.ChunkSize
	windows := make([]string, 0, len(tokens)/size+1)
	at, cut := 0, 0 // byte offsets: end of the decoded text so far, end of the windows so far
	exact := true
	for i := 0; i < len(tokens) || i == 0; i += size {
		decoded := s.cfg.Tokenizer.Decode(tokens[i:min(i+size, len(tokens))])
		if exact && strings.HasPrefix(text[at:], decoded) {
			at += len(decoded)
			end := at
			for end > cut && end < len(text) && !utf8.RuneStart(text[end]) {
				end--
			}
			if end > cut || i == 0 {
				windows = append(windows, text[cut:end])
				cut = end
			}
			continue
		}
		exact = false
		windows = append(windows, decoded)
	}
	return windows
}

// charWindows cuts text into consecutive windows of at most size UTF-16
// code units, never inside a character (a window holds at least one).
func charWindows(text string, size int) []string {
	var windows []string
	for text != "" {
		end, n16 := 0, 0
		for end < len(text) {
			r, width := utf8.DecodeRuneInString(text[end:])
			w16 := 1
			if r >= 0x10000 {
				w16 = 2
			}
			if n16+w16 > size && end > 0 {
				break
			}
			end += width
			n16 += w16
		}
		windows = append(windows, text[:end])
		text = text[end:]
	}
	return windows
}

// stripInlineSeparators removes, unless KeepSeparators, every run of three or
// more -, *, = or _ that touches a character other than whitespace on at
// least one side; runs standing alone (a "---" line) stay.
func (s *Splitter) stripInlineSeparators(text string) string {
	if s.cfg.KeepSeparators || text == "" {
		return text
	}
	var b strings.Builder
	last := 0 // end of the text copied so far
	for i := 0; i < len(text); {
		c := text[i]
		if c != '-' && c != '*' && c != '=' && c != '_' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] == c {
			j++
		}
		if j-i >= 3 {
			leftText := i > 0 && !jsvalue.IsSpace(lastRune(text[:i]))
			rightText := j < len(text) && !jsvalue.IsSpace(firstRune(text[j:]))
			if leftText || rightText {
				b.WriteString(text[last:i])
				last = j
			}
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
