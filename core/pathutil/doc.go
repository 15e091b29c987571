// Package pathutil is Folio's port of Vectra's pathUtils: string functions
// over storage paths that behave the same on every platform.
//
// Storage paths use "/" as separator ([Sep]). The functions also accept "\"
// as a separator on input, so Windows-style paths read from Vectra files are
// understood, and always produce "/" on output. They never touch a file
// system.
//
// The functions follow Vectra 0.15 exactly on ordinary paths. Three
// root-losing quirks are fixed, each noted on its function: [Join] keeps a
// leading "/" given as its first part, [Dirname] of a top-level absolute
// path is "/", and [Normalize] never lets ".." remove a drive letter.
//
// # Concurrency
//
// Every function is pure and safe for concurrent use.
//
// # Errors
//
// No function returns an error: every string is a path. [Normalize] drops
// ".." segments that would climb above the start of the path, silently, so
// callers that must confine a path to a folder check it themselves before
// normalising (see storagefs.Options.Root).
package pathutil
