// Package filetree walks and reads local folders the way Folio's file
// fetcher, folder watcher and CLI do, so that the three agree on which
// files are documents and under which path each is stored.
//
// A walk stays inside the folder it was given: a symbolic link whose target
// lies outside that folder is reported as skipped ([ErrOutsideTree], with
// the target in a [*LinkError]) unless [Options.FollowLinks] is set. Every
// file is reported under one path whatever route reached it: a file or
// folder reached through a symbolic link inside the tree is reported where
// it really is (the root as given, joined with the target's place below
// the root's real folder), and each real file and folder is visited once,
// so a link cycle ends and a file linked twice is one document. A file
// outside the tree, reached with FollowLinks, is reported under its
// absolute real path.
//
// [ReadFile] reads a file as a document's text: it looks at the first
// bytes before it reads the rest, so a binary file ([ErrBinary]) or one
// over the size cap ([ErrTooLarge]) costs a few kilobytes of memory
// whatever its size.
//
// # Concurrency
//
// The package holds no state: any number of walks and reads may run at
// once. A walk calls back from the goroutine that called Walk.
//
// # Errors
//
// Skipped entries are reported to the walk's callback with a reason that
// wraps [ErrOutsideTree], [ErrNotRegular] or the operating system's error;
// [ReadFile]'s errors wrap [ErrBinary], [ErrTooLarge] or the operating
// system's. A cancelled ctx ends a walk with ctx's error.
package filetree
