package core_test

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

func ExampleGetFileType() {
	fmt.Println(core.GetFileType("docs/Guide.MD"))
	fmt.Printf("%q\n", core.GetFileType("index.pb"))
	// Output:
	// md
	// ""
}

func ExampleGetFileTypeFromContentType() {
	fmt.Println(core.GetFileTypeFromContentType("text/html"))
	fmt.Println(core.GetFileTypeFromContentType("image/webp"))
	fmt.Printf("%q\n", core.GetFileTypeFromContentType("text/html; charset=utf-8"))
	// Output:
	// html
	// webp
	// ""
}
