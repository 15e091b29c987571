// Package watch keeps a document index in step with folders on disk:
// [FolderWatcher], Vectra 0.15's FolderWatcher rebuilt so that it never
// loses a change.
//
// A watcher syncs its paths into the index when it starts (files new or
// changed since the index last saw them are upserted, files gone are
// deleted), then watches them with the operating system's file events
// (through fsnotify) and syncs each changed path after a quiet period (the
// debounce). Every document's URI is the file's absolute path, as in
// Vectra, so an index fed by Vectra's watcher keeps working under this one.
//
//	w, err := watch.New(&watch.Options{
//		Index:      index,
//		Paths:      []string{"docs"},
//		Extensions: []string{".md", ".txt"},
//		OnSync:     func(uri string, action watch.SyncAction) { log.Println(action, uri) },
//		OnError:    func(err error, uri string) { log.Println(uri, err) },
//	})
//	if err != nil { … }
//	if err := w.Start(ctx); err != nil { … }
//	defer w.Stop()
//
// Fixed over Vectra:
//
//   - What is tracked comes from the index, not from memory: on Start, files
//     deleted while the watcher was stopped are deleted from the index and
//     files changed meanwhile are updated; an unchanged file costs one read
//     and a content hash, never an embeddings call and never an OnSync.
//   - One writer: every index write of a watcher is made by one goroutine
//     at a time, so bursts never fail with core.ErrUpdateInProgress; the
//     files of a sync are upserted together (core's UpsertDocuments), and
//     events for one path within the debounce window make one upsert.
//   - Files inside a deleted or renamed-away folder are deleted; a new
//     folder's tree is watched and synced; a rename is a delete plus an add;
//     the extension filter ignores case.
//   - The watcher stays inside the watched paths: a symbolic link leading
//     out of them is skipped and reported to OnSkip unless
//     Options.FollowLinks. A file reached through a link is stored under
//     its real path, so one file is one document whatever route reaches
//     it, and each real folder is walked and watched once, so a cycle ends.
//     Binary files and files over Options.MaxFileBytes are skipped, judged
//     from their size and first 8 KiB before they are read.
//   - Stop ends the sync in progress at its next commit, waits for it, and
//     returns; nothing is written after it returns. What it left undone, the
//     next Start syncs.
//   - Watching starts before the first sync, and an overflow of the
//     operating system's event queue triggers a full sync, so no change is
//     missed between them.
//
// # Concurrency
//
// A FolderWatcher's methods are safe to call from several goroutines. The
// callbacks (OnReady, OnSync, OnSkip, OnError) are called one at a time, from the
// goroutine writing the index (Start's, Sync's or the watcher's own); a
// callback must not call Stop, which waits for that goroutine. Queries on
// the index may run at any time, concurrently with a watcher's writes.
//
// # Errors
//
// Errors of single files (unreadable, an embeddings failure) go to OnError
// with the file's path and never stop the watcher. Start returns an error
// when the initial sync cannot run at all (the index is missing, ctx is
// done); Start on a running watcher is ErrRunning.
package watch
