module github.com/foliovec/folio/adapters/storage-fs

go 1.26

require (
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

require golang.org/x/sys v0.38.0

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)
