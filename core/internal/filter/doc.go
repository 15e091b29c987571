// Package filter compiles Folio's Mongo-style metadata filters (the grammar
// core.Filter documents) into predicates, and narrows them with posting
// lists.
//
// Its seam with the engine is narrow: [Compile] turns a filter into a
// [Predicate] and a [Plan]; [BuildPostings] and [WithAppended] index the
// metadata of a snapshot's slots; [Postings.Candidates] turns a plan into
// the ascending slots worth testing. Metadata is plain map[string]any here,
// which core.Metadata converts to.
package filter
