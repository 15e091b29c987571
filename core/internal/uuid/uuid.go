// Package uuid makes and recognises the random (version 4) UUIDs that
// name items, documents and side-car files, as Vectra names them.
package uuid

import (
	"crypto/rand"
	"encoding/hex"
)

// New returns a random RFC 4122 version 4 UUID, lowercase and
// hyphenated ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"), as Vectra's uuid
// package writes it. The randomness comes from crypto/rand, which never
// fails on supported platforms (it panics rather than return short reads).
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// Valid reports whether s is a UUID as Folio and Vectra write them: 32
// hexadecimal digits in groups of 8-4-4-4-12, either case.
func Valid(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
