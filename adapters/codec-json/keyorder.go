package codecjson

import (
	"slices"
	"strconv"
)

// objectKeys returns the keys of m in the order Folio writes them, the
// order a JavaScript object parsed from the file lists them in: keys that
// are array indexes ("0", "1", … "4294967294") first, in numeric order,
// then every other key in byte order. Go maps have no order, so insertion
// order (what JSON.stringify follows) cannot be kept; this order makes the
// output deterministic, and Vectra reading a Folio file and writing it
// back produces the same key order.
func objectKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

func compareKeys(a, b string) int {
	ai, aIndex := arrayIndex(a)
	bi, bIndex := arrayIndex(b)
	switch {
	case aIndex && bIndex:
		return cmpUint(ai, bi)
	case aIndex:
		return -1
	case bIndex:
		return 1
	}
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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
