package vectrapb

import "embed"

// Proto is the text of vectra_service.proto, the service definition this
// package is generated from, for tools that generate clients in other
// languages (folio generate).
//
//go:embed vectra_service.proto
var Proto []byte

// GoSources holds this package's generated Go code (the messages and the
// client and server stubs). `folio generate -l go` writes it into a
// client's own module, which then needs only google.golang.org/grpc and
// google.golang.org/protobuf, both published.
//
//go:embed vectra_service.pb.go vectra_service_grpc.pb.go
var GoSources embed.FS
