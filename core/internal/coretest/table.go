package coretest

import "testing"

// Case is one row of a table test of a function of one argument: its name
// states the rule. It is an alias of a struct type, so that tables list
// their rows without field names.
type Case[In any, Out comparable] = struct {
	Name string
	In   In
	Want Out
}

// Table runs f on each case's input as a subtest named by the case and
// reports, naming the function fn, each result that is not the case's Want.
func Table[In any, Out comparable](t *testing.T, fn string, f func(In) Out, cases []Case[In, Out]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if got := f(c.In); got != c.Want {
				t.Errorf("%s(%#v) = %#v, want %#v", fn, c.In, got, c.Want)
			}
		})
	}
}
