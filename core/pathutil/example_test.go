package pathutil_test

import (
	"fmt"

	"github.com/foliovec/folio/core/pathutil"
)

func ExampleJoin() {
	fmt.Println(pathutil.Join("indexes/", "/news/", "index.json"))
	fmt.Println(pathutil.Join(`C:\data`, "index.json"))
	// Output:
	// indexes/news/index.json
	// C:\data/index.json
}

func ExampleNormalize() {
	fmt.Println(pathutil.Normalize("indexes/./news/../sports//index.json"))
	fmt.Println(pathutil.Normalize(`C:\data\..\index.json`))
	fmt.Printf("%q\n", pathutil.Normalize("../outside"))
	// Output:
	// indexes/sports/index.json
	// C:/index.json
	// "outside"
}

func ExampleBasename() {
	fmt.Println(pathutil.Basename("docs/readme.md"))
	fmt.Println(pathutil.Basename("docs/readme.md", ".md"))
	fmt.Println(pathutil.Extname("docs/readme.md"))
	fmt.Println(pathutil.Dirname("docs/readme.md"))
	// Output:
	// readme.md
	// readme
	// .md
	// docs
}

func ExampleRelative() {
	fmt.Println(pathutil.Relative("indexes/news", "indexes/sports/index.json"))
	fmt.Println(pathutil.IsAbsolute("/var/folio"), pathutil.IsAbsolute("folio"))
	// Output:
	// ../sports/index.json
	// true false
}
