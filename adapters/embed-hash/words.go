package embedhash

// FNV-1a, 32 bits.
const (
	fnvOffset = 0x811C9DC5
	fnvPrime  = 0x01000193
)

// isWordByte reports whether b, once lower-cased, belongs to a word:
// a–z, 0–9, or any byte of a multi-byte UTF-8 sequence (>= 0x80).
func isWordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b >= 0x80
}

// lowerASCII maps A–Z to a–z and leaves every other byte alone.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// eachWord calls yield with the byte span and FNV-1a hash (of the lower-cased
// bytes) of every word of text, in order.
func eachWord(text string, yield func(start, end int, hash uint32)) {
	start := -1
	var h uint32
	for i := 0; i < len(text); i++ {
		b := lowerASCII(text[i])
		if !isWordByte(b) {
			if start >= 0 {
				yield(start, i, h)
				start = -1
			}
			continue
		}
		if start < 0 {
			start, h = i, fnvOffset
		}
		h = (h ^ uint32(b)) * fnvPrime
	}
	if start >= 0 {
		yield(start, len(text), h)
	}
}
