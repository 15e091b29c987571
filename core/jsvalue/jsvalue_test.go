package jsvalue_test

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"testing"
	"unicode/utf16"

	"github.com/foliovec/folio/core/jsvalue"
)

func TestNumberText(t *testing.T) {
	cases := []struct {
		f          float64
		str, jsonS string
	}{
		{0, "0", "0"},
		{math.Copysign(0, -1), "0", "0"},
		{1, "1", "1"},
		{-1.5, "-1.5", "-1.5"},
		{0.1, "0.1", "0.1"},
		{1e-6, "0.000001", "0.000001"},
		{1e-7, "1e-7", "1e-7"},
		{1.5e-10, "1.5e-10", "1.5e-10"},
		{1e20, "100000000000000000000", "100000000000000000000"},
		{1e21, "1e+21", "1e+21"},
		{1.7976931348623157e308, "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{5e-324, "5e-324", "5e-324"},
		{math.NaN(), "NaN", "null"},
		{math.Inf(1), "Infinity", "null"},
		{math.Inf(-1), "-Infinity", "null"},
	}
	for _, c := range cases {
		if got := jsvalue.FormatNumber(c.f); got != c.str {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.f, got, c.str)
		}
		if got := string(jsvalue.AppendJSONNumber(nil, c.f)); got != c.jsonS {
			t.Errorf("AppendJSONNumber(%v) = %q, want %q", c.f, got, c.jsonS)
		}
	}
	if got := string(jsvalue.AppendFloat32(nil, 0.1)); got != "0.1" {
		t.Errorf("AppendFloat32(0.1) = %q", got)
	}
	if got := string(jsvalue.AppendFloat32(nil, 1e-7)); got != "1e-7" {
		t.Errorf("AppendFloat32(1e-7) = %q", got)
	}
}

func TestToNumber(t *testing.T) {
	cases := map[string]float64{
		"": 0, "  ": 0, "10": 10, " 0x1A ": 26, "0o17": 15, "0b101": 5, "1e3": 1000, ".5": 0.5, "5.": 5,
		"-Infinity": math.Inf(-1), "+Infinity": math.Inf(1), "\ufeff7\u2028": 7, "1e400": math.Inf(1),
	}
	for s, want := range cases {
		if got := jsvalue.ToNumber(s); got != want {
			t.Errorf("ToNumber(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"abc", "1,5", "0x", "0xG", "1e", "--1", "Infinityx", "infinity"} {
		if got := jsvalue.ToNumber(s); !math.IsNaN(got) {
			t.Errorf("ToNumber(%q) = %v, want NaN", s, got)
		}
	}
}

func TestNumberFromGo(t *testing.T) {
	for _, v := range []any{int8(-3), uint64(7), float32(0.5), json.Number("2.5"), 4} {
		if _, ok := jsvalue.Number(v); !ok {
			t.Errorf("Number(%T) not a number", v)
		}
	}
	for _, v := range []any{"1", true, nil, json.Number("x")} {
		if _, ok := jsvalue.Number(v); ok {
			t.Errorf("Number(%#v) is a number", v)
		}
	}
}

func TestString(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"s", "s"}, {true, "true"}, {nil, "null"}, {1e21, "1e+21"}, {2.0, "2"},
		{[]any{1, nil, "a"}, "1,,a"}, {map[string]any{}, "[object Object]"},
	}
	for _, c := range cases {
		if got := jsvalue.String(c.v); got != c.want {
			t.Errorf("String(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// Invalid UTF-8 reads as U+FFFD everywhere.
func TestInvalidUTF8IsReplacementCharacter(t *testing.T) {
	bad := "a\xffb"
	if got := string(jsvalue.AppendQuote(nil, bad)); got != "\"a\ufffdb\"" {
		t.Errorf("AppendQuote = %q", got)
	}
	if n := jsvalue.UTF16Len(bad); n != 3 {
		t.Errorf("UTF16Len = %d", n)
	}
	if c := jsvalue.Compare(bad, "a\ufffdb"); c != 0 {
		t.Errorf("Compare with U+FFFD = %d", c)
	}
}

func TestAppendQuote(t *testing.T) {
	cases := map[string]string{
		"plain": `"plain"`, `q"b\`: `"q\"b\\"`, "\b\f\n\r\t": `"\b\f\n\r\t"`, "\x01\x1f": `"\u0001\u001f"`,
		"<&>\u2028\u2029é😀": "\"<&>\u2028\u2029é😀\"",
	}
	for in, want := range cases {
		if got := string(jsvalue.AppendQuote(nil, in)); got != want {
			t.Errorf("AppendQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestUTF16(t *testing.T) {
	s := "a😀é"
	if n := jsvalue.UTF16Len(s); n != 4 || n != len(jsvalue.UTF16(s)) {
		t.Errorf("UTF16Len = %d", n)
	}
	u := jsvalue.UTF16(s)
	for _, c := range []struct {
		a, b float64
		want string
	}{{0, 1, "a"}, {1, 3, "😀"}, {3, 1, "😀"}, {math.NaN(), 1, "a"}, {-5, 100, s}, {1.9, 3.2, "😀"}} {
		if got := jsvalue.Substring(u, c.a, c.b); got != c.want {
			t.Errorf("Substring(%v, %v) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
	if jsvalue.Compare("\U0001F600", "\uFFFD") >= 0 {
		t.Error("a character above U+FFFF sorts before U+FFFD in UTF-16 order")
	}
}

// FuzzCompare: Compare is the order of the strings' UTF-16 code units.
func FuzzCompare(f *testing.F) {
	f.Add("a", "b")
	f.Add("\U0001F600", "\uE000")
	f.Add("a\xff", "a\ufffd")
	f.Fuzz(func(t *testing.T, a, b string) {
		ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
		if got, want := jsvalue.Compare(a, b), slices.Compare(ua, ub); got != want {
			t.Fatalf("Compare(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// FuzzNumber: the text AppendNumber writes reads back as the same number.
func FuzzNumber(f *testing.F) {
	f.Add(0.1)
	f.Add(1e21)
	f.Add(-5e-324)
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		s := jsvalue.FormatNumber(x)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != x && !(x == 0 && back == 0) {
			t.Fatalf("%v written as %q reads %v, %v", x, s, back, err)
		}
		if got := jsvalue.ToNumber(s); got != back {
			t.Fatalf("ToNumber(%q) = %v, want %v", s, got, back)
		}
	})
}

func TestCompareOrdersAsJavaScriptSorts(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"ASCII by bytes", "a", "b", -1},
		{"prefix first", "a", "aa", -1},
		{"equal", "é", "é", 0},
		{"astral before U+E000 (surrogates are 0xD800-0xDFFF)", "\U0001F600", "\uE000", -1},
		{"astral before U+FF01", "\U00010000", "\uFF01", -1},
		{"U+D7FF before astral", "\uD7FF", "\U00010000", -1},
		{"astral by code point", "\U0001F4DA", "\U0001F600", -1},
		{"empty first", "", "a", -1},
		{"an invalid byte is U+FFFD", "\xff", "\uFFFD", 0},
	}
	for _, tc := range tests {
		if got := jsvalue.Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Compare(%q, %q) = %d, want %d", tc.name, tc.a, tc.b, got, tc.want)
		}
		if got := jsvalue.Compare(tc.b, tc.a); got != -tc.want {
			t.Errorf("%s: Compare(%q, %q) = %d, want %d", tc.name, tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestDecodeUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "",
		"plain é 日本":              "plain é 日本",
		"caf\xe9":                 "caf\uFFFD",
		"\xe2\x82 cut":            "\uFFFD\uFFFD cut",
		"\xff\xfe":                "\uFFFD\uFFFD",
		"ok\xc3(\xf0\x9f\x99\x82": "ok\uFFFD(🙂",
	} {
		if got := jsvalue.DecodeUTF8([]byte(in)); got != want {
			t.Errorf("DecodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}
