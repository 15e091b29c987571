// Package vectrapb is the Go code generated from Vectra 0.15's
// vectra_service.proto (package vectra): the messages and a client for
// VectraService, so Go programs can dial a Folio or Vectra server. Run
// `make generate` at the repository root to regenerate it.
package vectrapb
