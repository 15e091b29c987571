package codecpb

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

// ProtobufCodec reads and writes Vectra's protobuf index files. The zero
// value is ready to use.
type ProtobufCodec struct{}

var (
	_ core.IndexCodec         = (*ProtobufCodec)(nil)
	_ core.VectorArenaDecoder = (*ProtobufCodec)(nil)
)

// New returns a protobuf codec.
func New() *ProtobufCodec { return &ProtobufCodec{} }

// Extension returns ".pb".
func (*ProtobufCodec) Extension() string { return ".pb" }

// corrupt wraps a decoding failure of op in core.ErrCorrupt.
func corrupt(op string, err error) error {
	return fmt.Errorf("codecpb: %s: %w: %w", op, err, core.ErrCorrupt)
}

// invalid wraps an encoding failure of op, described by what, in
// core.ErrInvalidArgument.
func invalid(op, what string) error {
	return fmt.Errorf("codecpb: %s: %s: %w", op, what, core.ErrInvalidArgument)
}
