module github.com/foliovec/folio/cmd/folio

go 1.26

replace (
	github.com/foliovec/folio => ../..
	github.com/foliovec/folio/adapters/codec-json => ../../adapters/codec-json
	github.com/foliovec/folio/adapters/codec-pb => ../../adapters/codec-pb
	github.com/foliovec/folio/adapters/embed-hash => ../../adapters/embed-hash
	github.com/foliovec/folio/adapters/embed-hosted => ../../adapters/embed-hosted
	github.com/foliovec/folio/adapters/embed-onnx => ../../adapters/embed-onnx
	github.com/foliovec/folio/adapters/fetch => ../../adapters/fetch
	github.com/foliovec/folio/adapters/grpc => ../../adapters/grpc
	github.com/foliovec/folio/adapters/storage-fs => ../../adapters/storage-fs
	github.com/foliovec/folio/adapters/storage-mem => ../../adapters/storage-mem
	github.com/foliovec/folio/adapters/tokenizer-tiktoken => ../../adapters/tokenizer-tiktoken
	github.com/foliovec/folio/adapters/watch => ../../adapters/watch
	github.com/foliovec/folio/conformance => ../../conformance
	github.com/foliovec/folio/core => ../../core
)

require (
	github.com/foliovec/folio v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/codec-json v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/codec-pb v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hash v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hosted v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-onnx v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/fetch v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/grpc v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-fs v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-mem v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/tokenizer-tiktoken v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/watch v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.1.0
	golang.org/x/term v0.45.0
	google.golang.org/grpc v1.84.0
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2 // indirect
	github.com/PuerkitoBio/goquery v1.13.0 // indirect
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
