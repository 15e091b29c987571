package grpcserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
)

// statusCodes is the one table from errors to gRPC status codes, most
// specific first; the first sentinel an error wraps wins. Messages are
// never looked at. Every sentinel core exports has a row
// (TestEverySentinelHasAStatusCode).
var statusCodes = []struct {
	target error
	code   codes.Code
}{
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
	{core.ErrEmbeddingsCancelled, codes.Canceled},
	{core.ErrInvalidArgument, codes.InvalidArgument},
	{core.ErrInvalidFilter, codes.InvalidArgument},
	{core.ErrDimensionMismatch, codes.InvalidArgument},
	{core.ErrIndexNotFound, codes.NotFound},
	{core.ErrIndexExists, codes.AlreadyExists},
	{core.ErrItemExists, codes.AlreadyExists},
	{core.ErrNotDocumentIndex, codes.FailedPrecondition},
	{core.ErrEmbeddingsNotConfigured, codes.FailedPrecondition},
	{core.ErrPartiallyMigrated, codes.FailedPrecondition},
	{core.ErrNoUpdate, codes.FailedPrecondition},
	{core.ErrUpdateInProgress, codes.Aborted},
	{core.ErrRateLimited, codes.ResourceExhausted},
	{core.ErrEmbeddingsFailed, codes.Unavailable},
	{core.ErrHTTPStatus, codes.Unavailable},         // the site a document was fetched from failed
	{core.ErrContentType, codes.InvalidArgument},    // the URI names no text
	{core.ErrBodyTooLarge, codes.ResourceExhausted}, // over the fetcher's cap
	{core.ErrCorrupt, codes.DataLoss},
}

// codeOf is the status code of err: its row in statusCodes, else
// INTERNAL.
func codeOf(err error) codes.Code {
	for _, row := range statusCodes {
		if errors.Is(err, row.target) {
			return row.code
		}
	}
	return codes.Internal
}

// toStatus turns an error from core into a status error; one that is
// already a status passes through.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codeOf(err), err.Error())
}

func invalid(msg string) error { return status.Error(codes.InvalidArgument, msg) }

// fromProtoMetadata converts request metadata; entries without a value are
// dropped, as Vectra drops them.
func fromProtoMetadata(in map[string]*vectrapb.MetadataValue) core.Metadata {
	if len(in) == 0 {
		return nil
	}
	out := make(core.Metadata, len(in))
	for k, v := range in {
		switch x := v.GetValue().(type) {
		case *vectrapb.MetadataValue_StringValue:
			out[k] = x.StringValue
		case *vectrapb.MetadataValue_NumberValue:
			out[k] = x.NumberValue
		case *vectrapb.MetadataValue_BoolValue:
			out[k] = x.BoolValue
		}
	}
	return out
}

// toProtoMetadata converts metadata for a response: strings, numbers and
// booleans; other values are dropped, as Vectra drops them.
func toProtoMetadata(in core.Metadata) map[string]*vectrapb.MetadataValue {
	out := make(map[string]*vectrapb.MetadataValue, len(in))
	for k, v := range in {
		switch x := v.(type) {
		case string:
			out[k] = &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_StringValue{StringValue: x}}
		case bool:
			out[k] = &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_BoolValue{BoolValue: x}}
		case float64:
			out[k] = &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_NumberValue{NumberValue: x}}
		}
	}
	return out
}

func itemResult(it core.IndexItem, score float64) *vectrapb.ItemResult {
	return &vectrapb.ItemResult{Id: it.ID, Metadata: toProtoMetadata(it.Metadata), Vector: it.Vector, Norm: it.Norm, Score: score}
}

// parseFilter reads a request's filter: none, or "" is no filter; text that
// is not JSON is INVALID_ARGUMENT as in Vectra; JSON that is not a valid
// filter is INVALID_ARGUMENT too (Vectra passed it on).
func parseFilter(f *vectrapb.MetadataFilter) (core.Filter, error) {
	text := f.GetFilterJson()
	if text == "" {
		return nil, nil
	}
	if !json.Valid([]byte(text)) {
		return nil, invalid("Invalid filter_json: must be valid JSON")
	}
	filter, err := core.ParseFilter([]byte(text))
	if err != nil {
		return nil, invalid(fmt.Sprintf("Invalid filter_json: %v", err))
	}
	return filter, nil
}
