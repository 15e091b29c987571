//go:build !unix

package storagefs

// openNonBlock: FIFOs cannot be opened by path here.
const openNonBlock = 0

// openNoFollow: openRegular's Lstat refuses symbolic links here.
const openNoFollow = 0
