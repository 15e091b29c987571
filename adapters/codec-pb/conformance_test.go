package codecpb_test

import (
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/core"
)

// What the protobuf codec claims beyond the rules every codec keeps. It
// does not claim the rest: vectors are float32 on disk; non-scalar inline
// metadata becomes strings (Vectra's writer does the same); a nil and an
// empty indexed list, or an empty and an absent uriToHash, cannot be told
// apart on the wire; and a protobuf message cut at a field boundary is a
// valid, shorter message.
var capabilities = codectest.Capabilities{
	Float32Vectors:                 true,
	MetadataFilesPreserveNonScalar: true,
	RejectsNonFinite:               true,
	MetadataFilesRejectNonFinite:   true,
	TruncatedMetadataFails:         true,
}

func TestConformance(t *testing.T) {
	codectest.Run(t, func(testing.TB) core.IndexCodec { return codecpb.New() }, capabilities)
}
