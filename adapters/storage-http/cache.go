package storagehttp

import (
	"container/list"
	"slices"
	"sync"
	"sync/atomic"
)

// partCache keeps parts of files read, by the version of their file, up
// to a number of bytes, the least recently used dropped first.
type partCache struct {
	max int64

	mu     sync.Mutex
	used   int64
	lru    list.List                // of *cachedPart, most recent first
	byFile map[string][]*cachedPart // by offset
}

// cachedPart is the bytes of one file from off.
type cachedPart struct {
	key string
	off int64
	b   []byte
	el  *list.Element
}

func newPartCache(limit int64) *partCache {
	return &partCache{max: limit, byFile: map[string][]*cachedPart{}}
}

// lookBack is how many parts before the last one starting at or before a
// read get asks: parts overlap only where two reads of the same bytes
// raced.
const lookBack = 4

// get fills p with the bytes of file key from off when one part holds
// them all.
func (c *partCache) get(key string, off int64, p []byte) bool {
	if c.max <= 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	parts := c.byFile[key]
	i, _ := slices.BinarySearchFunc(parts, off, func(cp *cachedPart, off int64) int {
		switch {
		case cp.off <= off:
			return -1
		default:
			return 1
		}
	})
	for j := i - 1; j >= 0 && j >= i-lookBack; j-- {
		cp := parts[j]
		if cp.off+int64(len(cp.b)) >= off+int64(len(p)) {
			copy(p, cp.b[off-cp.off:])
			c.lru.MoveToFront(cp.el)
			return true
		}
	}
	return false
}

// put keeps b, the bytes of file key from off; parts larger than an
// eighth of the cache are not kept.
func (c *partCache) put(key string, off int64, b []byte) {
	if c.max <= 0 || int64(len(b)) > c.max/8 || len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := &cachedPart{key: key, off: off, b: b}
	cp.el = c.lru.PushFront(cp)
	parts := c.byFile[key]
	i, _ := slices.BinarySearchFunc(parts, off, func(cp *cachedPart, off int64) int {
		if cp.off <= off {
			return -1
		}
		return 1
	})
	c.byFile[key] = slices.Insert(parts, i, cp)
	c.used += int64(len(b))
	for c.used > c.max {
		old := c.lru.Remove(c.lru.Back()).(*cachedPart)
		c.used -= int64(len(old.b))
		list := c.byFile[old.key]
		if k := slices.Index(list, old); k >= 0 {
			list = slices.Delete(list, k, k+1)
		}
		if len(list) == 0 {
			delete(c.byFile, old.key)
		} else {
			c.byFile[old.key] = list
		}
	}
}

// metrics count a storage's requests.
type metrics struct {
	requests, bytes, hits atomic.Int64
}

func (m *metrics) stats() Stats {
	return Stats{Requests: m.requests.Load(), Bytes: m.bytes.Load(), CacheHits: m.hits.Load()}
}
