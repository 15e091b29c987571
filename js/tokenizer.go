//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"
)

// jsTokenizer is a tokenizer written in JavaScript: encode(text) and
// decode(tokens), both synchronous, as Vectra's Tokenizer is.
type jsTokenizer struct{ obj js.Value }

// Encode and Decode have no error to return: when the page's method
// throws they panic with its error, which the bridge answers as the
// call's rejection. Folio's engine calls EncodeContext, which returns it.
func (t jsTokenizer) Encode(text string) []int {
	ids, err := t.EncodeContext(context.Background(), text)
	if err != nil {
		panic(err)
	}
	return ids
}

func (t jsTokenizer) EncodeContext(_ context.Context, text string) (_ []int, err error) {
	defer guard(&err, "encodeContext")
	v, err := callJS(func() js.Value { return t.obj.Call("encode", text) })
	if err != nil {
		return nil, err
	}
	var ids []int
	if err := fromJSON(js.Global().Get("Array").Call("from", v), &ids); err != nil {
		return nil, fmt.Errorf("folio: the tokenizer's encode: %w", err)
	}
	return ids, nil
}

func (t jsTokenizer) Decode(tokens []int) string {
	list := make([]any, len(tokens))
	for i, id := range tokens {
		list[i] = id
	}
	v, err := callJS(func() js.Value { return t.obj.Call("decode", js.ValueOf(list)) })
	if err != nil {
		panic(err)
	}
	return v.String()
}
