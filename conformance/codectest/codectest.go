package codectest

import (
	"errors"
	"fmt"
	"runtime/debug"
	"testing"

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
func Run(t *testing.T, newCodec func() core.IndexCodec, caps Capabilities) {
	t.Helper()
	for _, tc := range cases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, err := range runCase(tc, newCodec, caps) {
				t.Error(err)
			}
		})
	}
}

// Check runs every case, each with a fresh codec from newCodec, and returns
// nil when the codec keeps every rule, or the [errors.Join] of every
// violation, each prefixed with the rule (case name) it broke.
func Check(newCodec func() core.IndexCodec, caps Capabilities) error {
	var errs []error
	for _, tc := range cases() {
		for _, err := range runCase(tc, newCodec, caps) {
			errs = append(errs, fmt.Errorf("%s: %w", tc.name, err))
		}
	}
	return errors.Join(errs...)
}

// testCase is one rule. run records every violation it finds in r.
type testCase struct {
	name string
	run  func(c core.IndexCodec, caps Capabilities, r *report)
}

// report collects the violations of one case.
type report struct {
	errs []error
}

func (r *report) errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// runCase runs tc on a fresh codec; a panic that escapes the case's own
// guards is a violation too.
func runCase(tc testCase, newCodec func() core.IndexCodec, caps Capabilities) (errs []error) {
	r := &report{}
	defer func() {
		if p := recover(); p != nil {
			errs = append(r.errs, &panicError{value: p, stack: debug.Stack()})
		}
	}()
	c := newCodec()
	if c == nil {
		return []error{errors.New("newCodec returned nil")}
	}
	tc.run(c, caps, r)
	return r.errs
}

// cases lists every rule, in the order they run.
func cases() []testCase {
	var all []testCase
	all = append(all, indexCases()...)
	all = append(all, catalogCases()...)
	all = append(all, metadataCases()...)
	all = append(all, corruptCases()...)
	all = append(all, sharingCases()...)
	all = append(all, concurrencyCases()...)
	return all
}
