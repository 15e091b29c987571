//go:build !purego

package vecmath

// purego: built with the purego tag (portable kernels only).
const purego = false
