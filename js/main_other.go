//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main says how to build this program: it is folio.wasm, for a web page.
func main() {
	fmt.Fprintln(os.Stderr, "this is folio.wasm, Folio's JavaScript package: build it with GOOS=js GOARCH=wasm, or run make js")
	os.Exit(2)
}
