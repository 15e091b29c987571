// Package pb holds the Go types protoc-gen-go generates from index.proto,
// Vectra 0.15's protobuf schema. Package codecpb encodes and decodes the wire
// format by hand; only its tests import this package, as the oracle the
// hand-written codec is checked against byte for byte, so the generated
// code never reaches a program that uses codecpb.
//
// index.pb.go is generated (`make generate`; `make generate-check` fails
// when it is stale) and keeps protoc-gen-go's init function, which registers
// the messages in the protobuf registry: the one init in Folio, confined to
// test binaries.
//
// # Concurrency
//
// The generated messages follow google.golang.org/protobuf's rules: a
// message may be read concurrently, but not read and written at once.
//
// # Errors
//
// The package returns no errors of its own; marshalling and unmarshalling
// go through google.golang.org/protobuf/proto.
package pb
