package tokenizertiktoken_test

import (
	"fmt"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
)

func ExampleNew() {
	tok := tokenizertiktoken.New() // share it: it loads its ranks on first use

	ids := tok.Encode("Hello, World!")
	fmt.Println(ids)
	fmt.Println(tok.Decode(ids))

	// Special-token strings are ordinary text.
	fmt.Println(len(tok.Encode("<|endoftext|>")) > 1)
	// Output:
	// [13225 11 5922 0]
	// Hello, World!
	// true
}
