// Package grpcserver serves Folio indexes over Vectra 0.15's gRPC service
// (package vectra, service VectraService, the 18 RPCs of Vectra's
// vectra_service.proto), so clients generated from Vectra's proto, in any
// language, work unchanged. The generated Go client is in package vectrapb.
//
// Each handler validates its request in Vectra's order, with Vectra's
// messages and defaults (top_k 10, max_documents 10, max_chunks 50, chunk
// size 512). Where Folio differs from Vectra's server:
//
//   - Status codes come from the error's kind (errors.Is on core's
//     sentinels), never from its text: client mistakes are
//     INVALID_ARGUMENT (a filter that is JSON but not a valid filter
//     included), unknown indexes NOT_FOUND, duplicates ALREADY_EXISTS, a
//     plain index where a document index is needed and a server without an
//     embeddings model FAILED_PRECONDITION, an ended call CANCELLED or
//     DEADLINE_EXCEEDED.
//   - Index names are validated (no path separator, no leading ".") and
//     unknown formats refused; a rescan drops indexes whose folder is gone.
//   - Mutating calls on one index wait for each other instead of failing
//     with "Update already in progress"; a failed call leaves nothing open.
//   - BatchInsertItems embeds its texts in as few calls as the model's
//     MaxTokens allows, and inserts all items or none.
//   - QueryDocuments chunks carry their real token_count.
//   - Off by default, so Vectra's clients need no change: TLS, a bearer
//     token, a message size limit. The standard grpc.health.v1 service and
//     server reflection are always served.
//
// # Concurrency
//
// An IndexServer is safe for concurrent use; calls are served concurrently,
// reads never wait for writes, and writes to one index are serialised.
//
// # Errors
//
// New and Start return errors wrapping core.ErrInvalidArgument
// for a bad configuration; calls return gRPC status errors.
package grpcserver
