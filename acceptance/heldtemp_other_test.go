//go:build !unix

package acceptance_test

import "testing"

// holdAsAWriter does nothing where temporary files are not locked: there
// a fresh one is kept for its age alone.
func holdAsAWriter(*testing.T, string) {}
