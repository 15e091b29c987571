package codecjson

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/foliovec/folio/core"
)

// parallelVectorBytes is the amount of vector text from which parseVectors
// splits the work across goroutines.
const parallelVectorBytes = 1 << 20

// parseVectors parses each located vector into its item. The text has
// already passed the JSON syntax check; what is left is to turn numbers
// into float32 and reject what is not a number. Large indexes are parsed by
// up to GOMAXPROCS goroutines, each on a contiguous run of items.
func parseVectors(src []byte, raws []rawVector, items []core.IndexItem) error {
	total := 0
	for _, r := range raws {
		total += r.end - r.start
	}
	workers := min(runtime.GOMAXPROCS(0), len(raws), total/parallelVectorBytes+1)
	if workers <= 1 {
		return parseVectorRun(src, raws, items)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per, first := total/workers, 0
	for w := range workers {
		last, size := first, 0
		for last < len(raws) && (size < per || w == workers-1) {
			size += raws[last].end - raws[last].start
			last++
		}
		run := raws[first:last]
		wg.Go(func() { errs[w] = parseVectorRun(src, run, items) })
		first = last
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// parseVectorRun parses a run of vectors, guessing each one's length from
// the one before (embeddings in one index share their dimensions).
func parseVectorRun(src []byte, raws []rawVector, items []core.IndexItem) error {
	guess := 0
	for _, r := range raws {
		v, err := parseVector(src[r.start:r.end], guess)
		if err != nil {
			return fmt.Errorf("items[%d]: \"vector\": %w", r.item, err)
		}
		items[r.item].Vector = v
		guess = len(v)
	}
	return nil
}

// parseVector parses one vector value: an array of numbers and nulls
// (null reads as 0), or null (no vector). raw may start with the ':' and
// white space before the value.
func parseVector(raw []byte, guess int) ([]float32, error) {
	i := skipSpace(raw, 0)
	if i < len(raw) && raw[i] == ':' {
		i = skipSpace(raw, i+1)
	}
	switch at(raw, i) {
	case '[':
	case 'n':
		return nil, nil
	default:
		return nil, fmt.Errorf("got %s, want an array of numbers", describe(raw[i:]))
	}
	v := make([]float32, 0, guess)
	i = skipSpace(raw, i+1)
	if at(raw, i) == ']' {
		return v, nil
	}
	for {
		switch c := at(raw, i); {
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			x, err := parseComponent(raw[i:j])
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", len(v), err)
			}
			v = append(v, x)
			i = j
		case c == 'n' && i+4 <= len(raw) && string(raw[i:i+4]) == "null":
			v = append(v, 0)
			i += 4
		default:
			return nil, fmt.Errorf("[%d]: got %s, want a number", len(v), describe(raw[i:]))
		}
		i = skipSpace(raw, i)
		switch at(raw, i) {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return v, nil
		default:
			return nil, fmt.Errorf("[%d]: got %s, want ',' or ']'", len(v), describe(raw[i:]))
		}
	}
}

// parseComponent parses a JSON number as a float32: the float64 JavaScript
// reads, rounded to float32 (as Vectra's own protobuf codec rounds it).
// For the shortest float32 text Folio writes, that is the float32 written.
func parseComponent(s []byte) (float32, error) {
	if len(s) == 1 && s[0] == '0' {
		return 0, nil
	}
	f, err := strconv.ParseFloat(string(s), 64)
	x := float32(f)
	if err != nil || math.IsInf(float64(x), 0) {
		return 0, fmt.Errorf("number %s is beyond float32 range", s)
	}
	return x, nil
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
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
