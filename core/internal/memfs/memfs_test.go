package memfs

import (
	"fmt"
	"sync"
	"testing"
)

// checkTree verifies the storage's structure: every entry but the roots is
// listed by its parent folder, and every listed child exists.
func checkTree(t *testing.T, s *FS) {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, e := range s.entries {
		parent, name, isRoot := split(k)
		if isRoot {
			if !e.folder {
				t.Errorf("root %q is not a folder", k)
			}
			continue
		}
		p, ok := s.entries[parent]
		if !ok || !p.folder {
			t.Errorf("%q has no parent folder %q", k, parent)
			continue
		}
		if _, listed := p.children[name]; !listed {
			t.Errorf("%q is not listed by its parent %q", k, parent)
		}
		if !e.folder && e.children != nil {
			t.Errorf("file %q has children", k)
		}
	}
	for k, e := range s.entries {
		for name := range e.children {
			if _, ok := s.entries[childKey(k, name)]; !ok {
				t.Errorf("folder %q lists missing child %q", k, name)
			}
		}
	}
}

// TestTreeStaysConsistentUnderConcurrentChanges races folder creation,
// recursive deletion, writes and listings over one tree, then checks that
// no entry was orphaned and no listing points nowhere.
func TestTreeStaysConsistentUnderConcurrentChanges(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := range 60 {
				dir := fmt.Sprintf("t/%d/%d", i%3, (w+i)%4)
				switch (w + i) % 4 {
				case 0:
					_ = s.MakeFolder(dir)
				case 1:
					_ = s.Upsert(dir+"/f.txt", []byte("x")) // may miss its folder
				case 2:
					_ = s.Delete(fmt.Sprintf("t/%d", i%3), true)
				case 3:
					_, _ = s.List(dir)
				}
			}
		})
	}
	wg.Wait()
	checkTree(t, s)
}

func TestSplitAndChildKeyAreInverse(t *testing.T) {
	for _, k := range []string{"a", "a/b", "/a", "/a/b", "C:", "C:/a", "a/b/c.txt"} {
		parent, name, isRoot := split(k)
		if isRoot || childKey(parent, name) != k {
			t.Errorf("split(%q) = %q, %q, %v; childKey gives %q", k, parent, name, isRoot, childKey(parent, name))
		}
	}
	for _, k := range []string{"", "/"} {
		if _, _, isRoot := split(k); !isRoot {
			t.Errorf("split(%q) is not a root", k)
		}
	}
}
