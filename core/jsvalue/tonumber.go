package jsvalue

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ToNumber converts s as JavaScript's Number(s) does: surrounding white
// space (IsSpace) is ignored, "" is 0, "Infinity" with an optional sign,
// 0x/0o/0b integers and decimal literals are numbers, anything else is NaN.
func ToNumber(s string) float64 {
	s = strings.TrimFunc(s, IsSpace)
	switch s {
	case "":
		return 0
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			digits := s[2:]
			for _, c := range digits {
				if !isDigitIn(c, base) {
					return math.NaN()
				}
			}
			n, _ := new(big.Int).SetString(digits, base)
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	if !isDecimal(s) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return math.NaN()
	}
	return f
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isDigitIn(c rune, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case c >= 'a' && c <= 'f':
		return base == 16
	case c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}

// isDecimal reports whether s is a StrDecimalLiteral without "Infinity":
// [+-] (digits [. digits] | . digits) [(e|E) [+-] digits].
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == len(s)
}
