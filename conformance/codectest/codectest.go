package codectest

import (
	"context"
	"testing"

	"github.com/foliovec/folio/conformance/internal/suite"

	"github.com/foliovec/folio/core"
)

// Capabilities says what a codec claims beyond the rules every codec keeps.
// The zero value claims nothing; the suite then checks only the common rules.
type Capabilities struct {
	// Float32Vectors: every float32 vector component round-trips exactly
	// (compared with ==, so -0 may come back as 0). Without it, components
	// need only agree to a relative 1e-6.
	Float32Vectors bool

	// PreservesNonScalarMetadata: metadata values that are nil, []any or
	// map[string]any inside an index item round-trip unchanged (JSON). A
	// codec without it may turn them into something else (Vectra's protobuf
	// codec writes them as strings); the suite does not look at them then.
	PreservesNonScalarMetadata bool

	// MetadataFilesPreserveNonScalar: the same for SerializeMetadata, the
	// side-car and document metadata files. Vectra writes those as JSON text in
	// both of its codecs, so both keep nil, arrays and objects.
	MetadataFilesPreserveNonScalar bool

	// KeepsEmptyIndexed: a nil MetadataConfig.Indexed reads back nil and an
	// empty non-nil one reads back empty and non-nil (JSON writes `{}` and
	// `{"indexed":[]}`). Without it both read back with no entries, nil or not.
	KeepsEmptyIndexed bool

	// KeepsEmptyURIToHash: an empty non-nil URIToHash reads back empty and
	// non-nil (JSON writes `"uriToHash":{}`). Without it, it reads back with
	// no entries, nil or not (protobuf cannot tell an empty map from none). A
	// nil URIToHash reads back nil either way.
	KeepsEmptyURIToHash bool

	// RejectsNonFinite: NaN and ±Inf in a vector, a norm or a metadata number
	// cannot be encoded; Serialize returns an error wrapping
	// [core.ErrInvalidArgument] (JSON has no text for them). Without it they
	// round-trip (NaN as NaN, ±Inf as ±Inf).
	RejectsNonFinite bool

	// MetadataFilesRejectNonFinite: the same for SerializeMetadata. Vectra
	// writes metadata files as JSON text in both codecs, so both claim it.
	MetadataFilesRejectNonFinite bool

	// TruncatedIndexFails: every strict prefix of an index or catalog
	// encoding fails to decode with an error wrapping [core.ErrCorrupt] (true
	// of JSON, whose top-level object is closed by its last byte). Without it
	// a prefix may decode (a protobuf message cut at a field boundary is a
	// valid, shorter message); the suite then asks, as for any other bad
	// input, for no panic, an error wrapping core.ErrCorrupt or a value that
	// survives another encode and decode.
	TruncatedIndexFails bool

	// TruncatedMetadataFails: the same for metadata encodings. Vectra's
	// codecs both write metadata files as JSON text, so both claim it.
	TruncatedMetadataFails bool

	// Deterministic: the same value always encodes to the same bytes, map
	// keys included (JSON writes them in a fixed order; Go's protobuf
	// encoding needs its Deterministic option for that).
	Deterministic bool
}

// Run runs every case as a subtest of t, each with a fresh codec from
// newCodec, and reports each violation with t.Error.
func Run(t *testing.T, newCodec func(t testing.TB) core.IndexCodec, caps Capabilities) {
	t.Helper()
	suite.Run(t, cases(), newCodec, caps)
}

// Check runs every case outside go test, each with a fresh codec from
// newCodec, and returns nil when the codec keeps every rule, or the
// [errors.Join] of every violation, each prefixed with the rule (case name)
// it broke. The testing.TB given to newCodec records failures as violations;
// its ArtifactDir, Setenv and Chdir are not available.
func Check(ctx context.Context, newCodec func(t testing.TB) core.IndexCodec, caps Capabilities) error {
	return suite.Check(ctx, "codectest", cases(), newCodec, caps)
}

// rule is one case as the case files list it; its name states the rule.
type rule struct {
	name string
	run  func(t testing.TB, c core.IndexCodec, caps Capabilities)
}

// cases lists every rule, in the order they run.
func cases() []suite.Case[core.IndexCodec, Capabilities] {
	var all []rule
	all = append(all, indexCases()...)
	all = append(all, catalogCases()...)
	all = append(all, metadataCases()...)
	all = append(all, corruptCases()...)
	all = append(all, decoderCases()...)
	all = append(all, encoderCases()...)
	all = append(all, sharingCases()...)
	all = append(all, concurrencyCases()...)
	all = append(all, localIndexCases()...)
	out := make([]suite.Case[core.IndexCodec, Capabilities], len(all))
	for i, r := range all {
		out[i] = suite.Case[core.IndexCodec, Capabilities]{Name: r.name, Run: func(t testing.TB, newCodec func(testing.TB) core.IndexCodec, caps Capabilities) {
			c := newCodec(t)
			if c == nil {
				t.Fatal("newCodec returned nil")
			}
			r.run(t, c, caps)
		}}
	}
	return out
}
