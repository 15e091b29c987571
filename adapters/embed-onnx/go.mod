module github.com/foliovec/folio/adapters/embed-onnx

go 1.26.0

require (
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
	github.com/gofrs/flock v0.13.2
	github.com/yalue/onnxruntime_go v1.27.0
	golang.org/x/text v0.41.0
)

require golang.org/x/sys v0.49.0 // indirect

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)
