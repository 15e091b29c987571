package codectest

import (
	"fmt"
	"runtime/debug"

	"github.com/foliovec/folio/core"
)

// panicError is a panic inside the codec, recovered and reported as a
// violation.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string {
	return fmt.Sprintf("codec panicked: %v\n%s", e.value, e.stack)
}

// guard calls f and turns a panic into a *panicError.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, &panicError{value: p, stack: debug.Stack()}
		}
	}()
	return f()
}

func encodeIndex(c core.IndexCodec, d core.IndexData) ([]byte, error) {
	return guard(func() ([]byte, error) { return c.SerializeIndex(d) })
}

func decodeIndex(c core.IndexCodec, b []byte) (core.IndexData, error) {
	return guard(func() (core.IndexData, error) { return c.DeserializeIndex(b) })
}

func encodeCatalog(c core.IndexCodec, d core.DocumentCatalog) ([]byte, error) {
	return guard(func() ([]byte, error) { return c.SerializeCatalog(d) })
}

func decodeCatalog(c core.IndexCodec, b []byte) (core.DocumentCatalog, error) {
	return guard(func() (core.DocumentCatalog, error) { return c.DeserializeCatalog(b) })
}

func encodeMetadata(c core.IndexCodec, m core.Metadata) ([]byte, error) {
	return guard(func() ([]byte, error) { return c.SerializeMetadata(m) })
}

func decodeMetadata(c core.IndexCodec, b []byte) (core.Metadata, error) {
	return guard(func() (core.Metadata, error) { return c.DeserializeMetadata(b) })
}
