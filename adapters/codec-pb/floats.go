package codecpb

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian reports whether this machine stores numbers little-endian,
// as the wire format does (true of amd64, arm64 and wasm).
func littleEndian() bool {
	return binary.NativeEndian.Uint16([]byte{1, 0}) == 1
}

// decodeFloats fills dst with the little-endian float32 components in src
// (len(src) == 4*len(dst)), turning NaN and ±Inf into 0. On a
// little-endian machine the bytes are copied as they are and then checked,
// which BenchmarkDecodeIndex measured about 1.4 times faster than
// converting them one by one.
func decodeFloats(dst []float32, src []byte) {
	if len(dst) == 0 {
		return
	}
	if !littleEndian() {
		for i := range dst {
			dst[i] = finite32(binary.LittleEndian.Uint32(src[4*i:]))
		}
		return
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst)), src)
	bits := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), len(dst))
	for i, b := range bits {
		if b&0x7f800000 == 0x7f800000 {
			bits[i] = 0
		}
	}
}
