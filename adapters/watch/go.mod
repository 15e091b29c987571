module github.com/foliovec/folio/adapters/watch

go 1.26

require (
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
	github.com/fsnotify/fsnotify v1.10.1
)

require golang.org/x/sys v0.13.0 // indirect

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)
