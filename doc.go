// Package folio wires Folio's default adapters for newcomers: a local
// file-system storage, the JSON codec (protobuf on request) and the o200k_base
// tokenizer. It holds no logic of its own; everything it returns is a type
// from package core.
//
// # Concurrency
//
// The functions here are safe for concurrent use; the values they return
// document their own guarantees.
//
// # Errors
//
// Errors come from package core and the adapters unchanged; match them with
// errors.Is against core's sentinels.
package folio
