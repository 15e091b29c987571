//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
)

// A value from the page is read only through prop and length. A property
// read may run JavaScript (a getter, a Proxy's trap) that throws, and
// syscall/js's Get, Index, Length and InstanceOf do not catch what it
// throws: the Go program would end. Call does: it panics with a js.Error,
// which the bridge's recover answers as the call's rejection, and which
// the ports below turn into their error. The rule, everywhere in this
// package: page values through prop, length and the ports' guard; only
// values Folio made itself through Get.

// prop is Reflect.get(v, key): undefined when v is not an object.
func prop(v js.Value, key any) js.Value {
	if t := v.Type(); t != js.TypeObject && t != js.TypeFunction {
		return js.Undefined()
	}
	return js.Global().Get("Reflect").Call("get", v, key)
}

// length is v.length as an int, 0 when it is not a number.
func length(v js.Value) int {
	n := prop(v, "length")
	if n.Type() != js.TypeNumber {
		return 0
	}
	f := n.Float()
	if f != f || f < 0 || f > 1<<31 {
		return 0
	}
	return int(f)
}

// tag is Object.prototype.toString's name of v's kind ("Array",
// "ArrayBuffer", "Uint8Array", …), read without instanceof, which a Proxy
// may throw from uncaught.
func tag(v js.Value) string {
	if t := v.Type(); t != js.TypeObject && t != js.TypeFunction {
		return ""
	}
	s := js.Global().Get("Object").Get("prototype").Get("toString").Call("call", v)
	if s.Type() != js.TypeString {
		return ""
	}
	name := s.String() // "[object Name]"
	if len(name) < 9 {
		return ""
	}
	return name[8 : len(name)-1]
}

// guard turns a panic of a port method, which core may call on a
// goroutine of its own where nothing recovers, into the method's error.
// what names the call.
func guard(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("folio: %s: %w", what, panicError(r))
	}
}
