package codecjson

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// objectKeys returns the keys of m in the order Folio writes them, the
// order a JavaScript object parsed from the file lists them in: keys that
// are array indexes ("0", "1", … "4294967294") first, in numeric order,
// then every other key in byte order. Go maps have no order, so insertion
// order (what JSON.stringify follows) cannot be kept; this order makes the
// output deterministic, and Vectra reading a Folio file and writing it
// back produces the same key order.
//
// The keys are appended to dst, so that a caller can pass a small array
// on its stack.
func objectKeys[V any](dst []string, m map[string]V) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.SortFunc(dst, compareKeys)
	return dst
}

func compareKeys(a, b string) int {
	ai, aIndex := arrayIndex(a)
	bi, bIndex := arrayIndex(b)
	switch {
	case aIndex && bIndex:
		return cmp.Compare(ai, bi)
	case aIndex:
		return -1
	case bIndex:
		return 1
	}
	return strings.Compare(a, b)
}

// arrayIndex reports whether k is the canonical decimal form of an
// ECMAScript array index (0 … 2^32-2), and its value.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	for i := range len(k) {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n > 1<<32-2 {
		return 0, false
	}
	return n, true
}
