package codecjson

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/foliovec/folio/core"
)

// Large indexes are encoded in parallel runs joined together; the result
// must be byte for byte the serial encoding.
func TestParallelEncodingEqualsSerialEncoding(t *testing.T) {
	for _, n := range []int{2, 3, 1001, 4000} {
		t.Run(fmt.Sprintf("%d items", n), func(t *testing.T) {
			d := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}}
			for i := range n {
				v := make([]float32, 1<<20/n/8+1) // about 1.3 MiB in all, enough to split
				for j := range v {
					v[j] = float32(i+j) / 3
				}
				d.Items = append(d.Items, core.IndexItem{ID: fmt.Sprint(i), Metadata: core.Metadata{"i": i}, Vector: v, Norm: float64(i)})
			}
			if hint := indexSizeHint(d.Items); hint < parallelEncodeBytes {
				t.Fatalf("size hint %d below the parallel threshold %d", hint, parallelEncodeBytes)
			}
			parallel, err := encodeIndex(d)
			if err != nil {
				t.Fatal(err)
			}
			serial, err := appendIndex(nil, d)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(parallel, serial) {
				t.Errorf("parallel encoding (%d bytes) differs from serial encoding (%d bytes)", len(parallel), len(serial))
			}
		})
	}
}
