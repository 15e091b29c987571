package core

import "github.com/foliovec/folio/core/internal/filter"

// compileFilter, planFilter and buildPostings are the filter package's seam
// in the shapes core's tests use.
func compileFilter(f Filter) (filter.Predicate, error) {
	match, _, err := filter.Compile(f)
	return match, err
}

func planFilter(f Filter) (filter.Predicate, filter.Plan, error) { return filter.Compile(f) }

func buildPostings(s *snapshot) *filter.Postings {
	return filter.BuildPostings(s.config.Indexed, s.meta)
}

func newSelection(s *snapshot, f Filter) (selection, error) {
	sel, _, err := planSelection(s, f)
	return sel, err
}
