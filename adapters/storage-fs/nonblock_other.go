//go:build !unix

package storagefs

// openNonBlock: FIFOs cannot be opened by path here.
const openNonBlock = 0
