// Package errs holds the sentinel errors that core exports and that core's
// internal packages wrap: core declares ErrInvalidArgument and ErrCorrupt as
// these values, so errors.Is matches them wherever they were wrapped.
package errs

import "errors"

var (
	// ErrInvalidArgument is core.ErrInvalidArgument.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrCorrupt is core.ErrCorrupt.
	ErrCorrupt = errors.New("corrupt data")
)
