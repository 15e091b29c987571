package slotmap

import (
	"fmt"
	"math/bits"
	"testing"
)

func TestSlotMap(t *testing.T) {
	t.Run("layers resolve every id and stay logarithmically deep", func(t *testing.T) {
		m := New(nil).With(map[string]int32{"a": 0})
		want := map[string]int32{"a": 0}
		for i := 1; i < 5000; i++ {
			id := fmt.Sprint("id", i)
			m = m.With(map[string]int32{id: int32(i)})
			want[id] = int32(i)
			if limit := bits.Len(uint(i)) + 1; m.depth > limit {
				t.Fatalf("after %d commits: depth %d, more than %d", i, m.depth, limit)
			}
		}
		for id, s := range want {
			if got, ok := m.Lookup(id); !ok || got != s {
				t.Fatalf("lookup(%q) = %d, %v", id, got, ok)
			}
		}
		if _, ok := m.Lookup("zz"); ok {
			t.Fatal("found a missing id")
		}
	})
	t.Run("a deletion mark hides the id below and goes once merged to the bottom", func(t *testing.T) {
		base := New(map[string]int32{"a": 0, "b": 1, "c": 2, "d": 3, "e": 4})
		m := base.With(map[string]int32{"b": -1})
		if _, ok := m.Lookup("b"); ok {
			t.Fatal("deleted id found")
		}
		if s, ok := base.Lookup("b"); !ok || s != 1 {
			t.Fatal("the parent changed")
		}
		m = m.With(map[string]int32{"f": 5, "g": 6, "h": 7})
		if m.parent != nil {
			t.Fatalf("layers not merged: depth %d", m.depth)
		}
		if _, kept := m.own["b"]; kept {
			t.Fatal("deletion mark kept in the bottom layer")
		}
		if s, ok := m.Lookup("h"); !ok || s != 7 {
			t.Fatal("h missing")
		}
	})
}
