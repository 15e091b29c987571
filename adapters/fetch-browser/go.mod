module github.com/foliovec/folio/adapters/fetch-browser

go 1.26

require (
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
	golang.org/x/net v0.58.0
)

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)
