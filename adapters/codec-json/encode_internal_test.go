package codecjson

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

// Large indexes are encoded in parallel runs joined together; the result
// must be byte for byte the serial encoding.
func TestParallelEncodingEqualsSerialEncoding(t *testing.T) {
	for _, tc := range []struct {
		n     int
		scale float32 // 1e-7 makes every component longer than the size hint
	}{{2, 1}, {3, 1}, {1001, 1}, {4000, 1}, {5, 1e-7}, {4000, 1e-7}} {
		n := tc.n
		t.Run(fmt.Sprintf("%d items, components scaled by %g", n, tc.scale), func(t *testing.T) {
			d := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}}
			for i := range n {
				v := make([]float32, 1<<20/n/8+1) // about 1.3 MiB in all, enough to split
				for j := range v {
					v[j] = float32(i+j) / 3 * tc.scale
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

func TestParallelEncodingReportsTheFirstBadItem(t *testing.T) {
	d := core.IndexData{Version: 1}
	for i := range 4000 {
		v := make([]float32, 64)
		if i == 3000 || i == 3500 {
			v[5] = float32(math.Inf(1))
		}
		d.Items = append(d.Items, core.IndexItem{ID: fmt.Sprint(i), Vector: v})
	}
	_, err := encodeIndex(d)
	if !errors.Is(err, core.ErrInvalidArgument) || !strings.Contains(err.Error(), `items[3000]: item "3000" vector[5] is +Inf`) {
		t.Errorf("got %v, want ErrInvalidArgument naming items[3000]", err)
	}
}
