package codecjson_test

import (
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/core"
)

// jsonCaps is what the JSON codec claims: everything codectest can check.
var jsonCaps = codectest.Capabilities{
	Float32Vectors:                 true,
	PreservesNonScalarMetadata:     true,
	MetadataFilesPreserveNonScalar: true,
	KeepsEmptyIndexed:              true,
	KeepsEmptyURIToHash:            true,
	RejectsNonFinite:               true,
	MetadataFilesRejectNonFinite:   true,
	TruncatedIndexFails:            true,
	TruncatedMetadataFails:         true,
	Deterministic:                  true,
}

func TestConformance(t *testing.T) {
	codectest.Run(t, func(testing.TB) core.IndexCodec { return codecjson.New() }, jsonCaps)
}
