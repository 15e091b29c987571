// Package errs holds the sentinel errors that core exports and that core's
// internal packages wrap: core declares ErrInvalidArgument and ErrCorrupt as
// these values, so errors.Is matches them wherever they were wrapped.
package errs

import "errors"

var (
	// InvalidArgument is core.ErrInvalidArgument.
	InvalidArgument = errors.New("invalid argument")
	// Corrupt is core.ErrCorrupt.
	Corrupt = errors.New("corrupt data")
)
