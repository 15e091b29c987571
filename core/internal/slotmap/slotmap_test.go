package slotmap

import "testing"

func TestSlotMap(t *testing.T) {
	t.Run("layers resolve every id and flatten once deep", func(t *testing.T) {
		m := New(nil).With(map[string]int32{"a": 0})
		want := map[string]int32{"a": 0}
		for i := 1; i < 40; i++ {
			id := string(rune('a' + i))
			m = m.With(map[string]int32{id: int32(i)})
			want[id] = int32(i)
			if m.depth >= maxSlotMapDepth {
				t.Fatalf("depth %d", m.depth)
			}
		}
		if m.Size() != len(want) {
			t.Fatalf("size %d", m.Size())
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
}
