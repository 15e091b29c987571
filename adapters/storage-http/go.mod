module github.com/foliovec/folio/adapters/storage-http

go 1.26.0

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)

require (
	github.com/foliovec/folio/adapters/storage-fs v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

require golang.org/x/sys v0.38.0 // indirect

replace github.com/foliovec/folio/adapters/storage-fs => ../storage-fs
