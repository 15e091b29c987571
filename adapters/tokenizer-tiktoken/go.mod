module github.com/foliovec/folio/adapters/tokenizer-tiktoken

go 1.26

require (
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
	github.com/pkoukk/tiktoken-go v0.1.8
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.3.0 // indirect
)

replace (
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)
