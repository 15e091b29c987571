package codecjson

import (
	"fmt"
	"math"
	"strconv"
)

// parseVector parses one vector value at the start of raw, after the
// ':' that follows its name: an array of numbers and nulls (null reads as
// 0, as JavaScript computes null*x as 0), or null (no vector). It checks
// the JSON syntax itself and returns the vector and the number of bytes
// read. An array's components are appended to dst, an empty slice whose
// capacity is where they go while they fit.
func parseVector(raw []byte, dst []float32) (v []float32, n int, err error) {
	i := skipSpace(raw, 0)
	if at(raw, i) != ':' {
		return nil, 0, fmt.Errorf("got %s, want ':'", describe(raw[i:]))
	}
	i = skipSpace(raw, i+1)
	switch {
	case at(raw, i) == '[':
	case isNull(raw, i):
		return nil, i + 4, nil
	default:
		return nil, 0, fmt.Errorf("got %s, want an array of numbers", describe(raw[i:]))
	}
	v = dst[:0]
	i = skipSpace(raw, i+1)
	if at(raw, i) == ']' {
		return v, i + 1, nil
	}
	for {
		if isNull(raw, i) {
			v = append(v, 0)
			i += 4
		} else {
			x, j, err := parseNumber(raw, i)
			if err != nil {
				return nil, 0, fmt.Errorf("[%d]: %w", len(v), err)
			}
			v = append(v, x)
			i = j
		}
		i = skipSpace(raw, i)
		switch at(raw, i) {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return v, i + 1, nil
		default:
			return nil, 0, fmt.Errorf("[%d]: got %s, want ',' or ']'", len(v), describe(raw[i:]))
		}
	}
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNull(b []byte, i int) bool {
	return i+4 <= len(b) && string(b[i:i+4]) == "null"
}

// parseNumber parses the JSON number that starts at b[i] as the float32
// nearest to it, and returns it with the index just past it. Nearest to
// the decimal means the shortest float32 text Folio writes reads back as
// the same float32. (For the float64 text Vectra writes, it is the float32
// of the float64 JavaScript reads, except when that float64 lies exactly
// halfway between two float32 values; rounding the decimal once is the
// better answer there.) The syntax is JSON's:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
//
// Plain decimals of up to 16 digits (every float32 text Folio writes, and
// most float64 text Vectra writes) take a fast path: mantissa and power of
// ten are exact float64 values, so one division gives the float64 nearest
// to the decimal, and rounding that to float32 gives the float32 nearest
// to the decimal unless the float64 lies exactly halfway between two
// float32 values (or outside the float32 normal range). Those, and numbers
// with exponents or more digits, go to strconv.ParseFloat.
func parseNumber(b []byte, i int) (float32, int, error) {
	start := i
	neg := at(b, i) == '-'
	if neg {
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	switch c := at(b, i); {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for ; i < len(b) && isDigit(b[i]); i++ {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
		}
	default:
		return 0, 0, fmt.Errorf("got %s, want a number", describe(b[start:]))
	}
	if at(b, i) == '.' {
		i++
		if !isDigit(at(b, i)) {
			return 0, 0, fmt.Errorf("got %s, want a number", describe(b[start:]))
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			frac++
		}
	}
	plain := true
	if c := at(b, i); c == 'e' || c == 'E' {
		plain = false
		i++
		if c := at(b, i); c == '+' || c == '-' {
			i++
		}
		if !isDigit(at(b, i)) {
			return 0, 0, fmt.Errorf("got %s, want a number", describe(b[start:]))
		}
		i = skipDigits(b, i)
	}
	if plain && digits <= 16 && mant < 1<<53 && frac <= 22 {
		f := float64(mant)
		if frac > 0 {
			f /= math.Pow10(frac)
		}
		bits := math.Float64bits(f)
		// Exponents -126…126: float32 normal range, no overflow. A
		// float64 halfway between two float32 values has exactly bit 28
		// set among its 29 low mantissa bits.
		exp := int(bits>>52) - 1023
		if exp >= -126 && exp <= 126 && bits&(1<<29-1) != 1<<28 {
			if neg {
				f = -f
			}
			return float32(f), i, nil
		}
		if f == 0 {
			if neg {
				return float32(math.Copysign(0, -1)), i, nil
			}
			return 0, i, nil
		}
	}
	x, err := strconv.ParseFloat(string(b[start:i]), 32)
	if err != nil {
		return 0, 0, fmt.Errorf("number %s is beyond float32 range", b[start:i])
	}
	return float32(x), i, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// at is b[i], or 0 past the end.
func at(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// describe shows the start of b in an error message.
func describe(b []byte) string {
	if len(b) == 0 {
		return "end of input"
	}
	if len(b) > 16 {
		return fmt.Sprintf("%q…", b[:16])
	}
	return fmt.Sprintf("%q", b)
}
