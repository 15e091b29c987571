package bm25

import "testing"

func TestPorterStem(t *testing.T) {
	// Pairs from Martin Porter's paper and his vocabulary/output lists.
	tests := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "disabled": "disabl", "matting": "mat", "mating": "mate",
		"meeting": "meet", "milling": "mill", "messing": "mess", "meetings": "meet",
		"plastered": "plaster", "bled": "bled", "motoring": "motor", "sing": "sing",
		"conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky",
		"relational": "relat", "conditional": "condit", "rational": "ration", "valenci": "valenc",
		"hesitanci": "hesit", "digitizer": "digit", "conformabli": "conform", "radicalli": "radic",
		"differentli": "differ", "vileli": "vile", "analogousli": "analog", "vietnamization": "vietnam",
		"predication": "predic", "operator": "oper", "feudalism": "feudal", "decisiveness": "decis",
		"hopefulness": "hope", "callousness": "callous", "formaliti": "formal", "sensitiviti": "sensit",
		"sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form", "formalize": "formal",
		"electriciti": "electr", "electrical": "electr", "hopeful": "hope", "goodness": "good",
		"revival": "reviv", "allowance": "allow", "inference": "infer", "airliner": "airlin",
		"gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens", "irritant": "irrit",
		"replacement": "replac", "adjustment": "adjust", "dependent": "depend", "adoption": "adopt",
		"homologou": "homolog", "communism": "commun", "activate": "activ", "angulariti": "angular",
		"homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler", "probate": "probat",
		"rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil", "complicated": "complic", "tokens": "token",
		"searching": "search", "databases": "databas", "vectors": "vector", "embeddings": "embed",
		"a": "a", "is": "is", "by": "by", "archaeology": "archaeolog",
	}
	for in, want := range tests {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzPorterStem(f *testing.F) {
	for _, s := range []string{"generalizations", "ies", "sses", "eed", "yyy", "bliss", "ion"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			b = append(b, 'a'+s[i]%26)
		}
		w := string(b)
		got := Stem(w)
		if len(got) > len(w) || (len(w) > 2 && len(got) == 0) {
			t.Fatalf("Stem(%q) = %q", w, got)
		}
	})
}
