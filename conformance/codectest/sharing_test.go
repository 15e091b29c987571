package codectest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// sharingBreakages are codecs that share memory they must not share, or
// encode maps in random order.
func sharingBreakages() []breakage {
	return []breakage{
		{
			name:  "decoded strings alias the input",
			codec: broken{deserializeMet: aliasingMetadata},
			rule:  "decoded values do not share the input bytes",
		},
		{
			name:  "encode buffer reused across calls",
			codec: &reusingCodec{},
			rule:  "encoded bytes are not reused by later calls",
		},
		{
			name: "metadata keys in map iteration order",
			codec: broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
				var b bytes.Buffer
				b.WriteByte('{')
				first := true
				for k, v := range m { // random order
					if !first {
						b.WriteByte(',')
					}
					first = false
					kb, _ := json.Marshal(k)
					vb, err := json.Marshal(v)
					if err != nil {
						return nil, fmt.Errorf("%w: %w", core.ErrInvalidArgument, err)
					}
					b.Write(kb)
					b.WriteByte(':')
					b.Write(vb)
				}
				b.WriteByte('}')
				return b.Bytes(), nil
			}},
			rule: "encoding is deterministic when claimed",
		},
	}
}

// aliasingMetadata decodes like reference.Codec, then points every string value
// that appears verbatim in the input at those input bytes.
func aliasingMetadata(p []byte) (core.Metadata, error) {
	m, err := ref.DeserializeMetadata(p)
	for k, v := range m {
		s, ok := v.(string)
		if !ok || s == "" {
			continue
		}
		if i := bytes.Index(p, []byte(`"`+s+`"`)); i >= 0 {
			m[k] = unsafe.String(&p[i+1], len(s))
		}
	}
	return m, err
}

// reusingCodec is reference.Codec whose SerializeIndex, when given a different
// index than last time, writes over the bytes it returned last time (as a
// codec reusing one buffer would). The same index twice, as in the
// concurrency case, leaves them alone, so -race sees no race.
type reusingCodec struct {
	reference.Codec
	mu     sync.Mutex
	last   []byte
	lastID string
}

func (c *reusingCodec) SerializeIndex(d core.IndexData) ([]byte, error) {
	b, err := c.Codec.SerializeIndex(d)
	if err != nil {
		return nil, err
	}
	id := ""
	if len(d.Items) > 0 {
		id = d.Items[0].ID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && id != c.lastID {
		for i := range c.last {
			c.last[i] = ' '
		}
	}
	c.last, c.lastID = b, id
	return b, nil
}
