package bm25

// Stem returns the stem of a lowercase ASCII word by Martin Porter's
// 1980 suffix-stripping algorithm, as his reference C implementation does
// it (including its two departures: "bli"→"ble" and "logi"→"log" in step
// 2). Words of one or two letters are returned unchanged. The caller passes
// only words made of 'a'..'z'.
func Stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	z := porter{b: []byte(word), k: len(word) - 1}
	z.step1ab()
	if z.k > 0 {
		z.step1c()
		z.step2()
		z.step3()
		z.step4()
		z.step5()
	}
	return string(z.b[:z.k+1])
}

// porter is the stemmer's state: the word is b[0..k], and j marks the end
// of the stem a matched suffix leaves.
type porter struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant.
func (z *porter) cons(i int) bool {
	switch z.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !z.cons(i-1)
	}
	return true
}

// m measures the consonant sequences in b[0..j]: with c a run of
// consonants and v a run of vowels, [c](vc){m}[v] gives m.
func (z *porter) m() int {
	n, i := 0, 0
	for {
		if i > z.j {
			return n
		}
		if !z.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > z.j {
				return n
			}
			if z.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > z.j {
				return n
			}
			if !z.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

// vowelInStem reports whether b[0..j] holds a vowel.
func (z *porter) vowelInStem() bool {
	for i := 0; i <= z.j; i++ {
		if !z.cons(i) {
			return true
		}
	}
	return false
}

// doubleC reports whether b[i-1..i] is a double consonant.
func (z *porter) doubleC(i int) bool {
	return i >= 1 && z.b[i] == z.b[i-1] && z.cons(i)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant and the last
// consonant is not w, x or y (hop, not snow).
func (z *porter) cvc(i int) bool {
	if i < 2 || !z.cons(i) || z.cons(i-1) || !z.cons(i-2) {
		return false
	}
	switch z.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with s, and then sets j before it.
func (z *porter) ends(s string) bool {
	l := len(s)
	if l > z.k+1 || string(z.b[z.k-l+1:z.k+1]) != s {
		return false
	}
	z.j = z.k - l
	return true
}

// setTo replaces b[j+1..k] with s.
func (z *porter) setTo(s string) {
	z.b = append(z.b[:z.j+1], s...)
	z.k = z.j + len(s)
}

// r replaces the suffix with s when the stem measures more than 0.
func (z *porter) r(s string) {
	if z.m() > 0 {
		z.setTo(s)
	}
}

// step1ab removes plurals and -ed or -ing.
func (z *porter) step1ab() {
	if z.b[z.k] == 's' {
		switch {
		case z.ends("sses"):
			z.k -= 2
		case z.ends("ies"):
			z.setTo("i")
		case z.b[z.k-1] != 's':
			z.k--
		}
	}
	if z.ends("eed") {
		if z.m() > 0 {
			z.k--
		}
		return
	}
	if (z.ends("ed") || z.ends("ing")) && z.vowelInStem() {
		z.k = z.j
		switch {
		case z.ends("at"):
			z.setTo("ate")
		case z.ends("bl"):
			z.setTo("ble")
		case z.ends("iz"):
			z.setTo("ize")
		case z.doubleC(z.k):
			z.k--
			switch z.b[z.k] {
			case 'l', 's', 'z':
				z.k++
			}
		default:
			z.j = z.k
			if z.m() == 1 && z.cvc(z.k) {
				z.setTo("e")
			}
		}
	}
}

// step1c turns a terminal y into i when there is another vowel in the stem.
func (z *porter) step1c() {
	if z.ends("y") && z.vowelInStem() {
		z.b[z.k] = 'i'
	}
}

// step2 maps double suffixes to single ones (-ization → -ize).
func (z *porter) step2() {
	var pairs [][2]string
	switch z.b[z.k-1] {
	case 'a':
		pairs = [][2]string{{"ational", "ate"}, {"tional", "tion"}}
	case 'c':
		pairs = [][2]string{{"enci", "ence"}, {"anci", "ance"}}
	case 'e':
		pairs = [][2]string{{"izer", "ize"}}
	case 'l':
		pairs = [][2]string{{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}}
	case 'o':
		pairs = [][2]string{{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}}
	case 's':
		pairs = [][2]string{{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}}
	case 't':
		pairs = [][2]string{{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}}
	case 'g':
		pairs = [][2]string{{"logi", "log"}}
	}
	z.replaceFirst(pairs)
}

// step3 handles -ic-, -full, -ness and the like.
func (z *porter) step3() {
	var pairs [][2]string
	switch z.b[z.k] {
	case 'e':
		pairs = [][2]string{{"icate", "ic"}, {"ative", ""}, {"alize", "al"}}
	case 'i':
		pairs = [][2]string{{"iciti", "ic"}}
	case 'l':
		pairs = [][2]string{{"ical", "ic"}, {"ful", ""}}
	case 's':
		pairs = [][2]string{{"ness", ""}}
	}
	z.replaceFirst(pairs)
}

// replaceFirst replaces the first suffix of pairs the word ends with (when
// the stem's measure allows).
func (z *porter) replaceFirst(pairs [][2]string) {
	for _, p := range pairs {
		if z.ends(p[0]) {
			z.r(p[1])
			return
		}
	}
}

// step4 takes off -ant, -ence and the like in context <c>vcvc<v>.
func (z *porter) step4() {
	var suffixes []string
	switch z.b[z.k-1] {
	case 'a':
		suffixes = []string{"al"}
	case 'c':
		suffixes = []string{"ance", "ence"}
	case 'e':
		suffixes = []string{"er"}
	case 'i':
		suffixes = []string{"ic"}
	case 'l':
		suffixes = []string{"able", "ible"}
	case 'n':
		suffixes = []string{"ant", "ement", "ment", "ent"}
	case 'o':
		if z.ends("ion") && z.j >= 0 && (z.b[z.j] == 's' || z.b[z.j] == 't') {
			break
		}
		suffixes = []string{"ou"}
	case 's':
		suffixes = []string{"ism"}
	case 't':
		suffixes = []string{"ate", "iti"}
	case 'u':
		suffixes = []string{"ous"}
	case 'v':
		suffixes = []string{"ive"}
	case 'z':
		suffixes = []string{"ize"}
	default:
		return
	}
	if suffixes != nil {
		matched := false
		for _, s := range suffixes {
			if z.ends(s) {
				matched = true
				break
			}
		}
		if !matched {
			return
		}
	}
	if z.m() > 1 {
		z.k = z.j
	}
}

// step5 removes a final -e and turns -ll into -l when the measure allows.
func (z *porter) step5() {
	z.j = z.k
	if z.b[z.k] == 'e' {
		a := z.m()
		if a > 1 || a == 1 && !z.cvc(z.k-1) {
			z.k--
		}
	}
	if z.b[z.k] == 'l' && z.doubleC(z.k) && z.m() > 1 {
		z.k--
	}
}
