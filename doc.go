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
// Errors from package core and the adapters pass through unchanged; match
// them with errors.Is against core's sentinels. The facade adds only
// argument checks, which wrap core.ErrInvalidArgument: NewLocalDocumentIndex
// with an empty FolderPath, MigrateIndex with a MigrateOptions.To other than
// FormatJSON or FormatProtobuf. DetectCodec fails with
// core.ErrIndexNotFound when the folder holds neither index file and with
// core.ErrPartiallyMigrated when it holds both.
package folio
