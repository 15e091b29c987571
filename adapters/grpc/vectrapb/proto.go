package vectrapb

import _ "embed"

// Proto is the text of vectra_service.proto, the service definition this
// package is generated from, for tools that generate clients in other
// languages (folio generate).
//
//go:embed vectra_service.proto
var Proto []byte
