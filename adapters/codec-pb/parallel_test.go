package codecpb_test

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

// Large indexes are decoded by several goroutines, each owning a run of
// items and of the vector arena; the result is the same as one decoder's.
func TestLargeIndexesDecodeInParallelRuns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 20_011 // four runs of ~5000 items, not evenly split
	in := core.IndexData{Version: 3, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}, Items: make([]core.IndexItem, n)}
	for i := range in.Items {
		in.Items[i] = core.IndexItem{
			ID:       fmt.Sprintf("item-%05d", i),
			Metadata: core.Metadata{"k": fmt.Sprintf("v%d", i%7), "n": float64(i)},
			Vector:   []float32{float32(i), -float32(i), 0.5},
			Norm:     float64(i),
		}
		if i%3 == 0 {
			in.Items[i].Vector = in.Items[i].Vector[:i%4] // lengths 0…3 shift every run's arena offset
			in.Items[i].MetadataFile = fmt.Sprintf("%d.pb", i)
		}
	}
	c := codecpb.New()
	b, err := c.SerializeIndex(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.DeserializeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Items {
		if len(in.Items[i].Vector) == 0 {
			in.Items[i].Vector = nil
		}
	}
	if !reflect.DeepEqual(got, in) {
		for i := range in.Items {
			if !reflect.DeepEqual(got.Items[i], in.Items[i]) {
				t.Fatalf("items[%d] = %#v, want %#v", i, got.Items[i], in.Items[i])
			}
		}
		t.Fatal("decoded index differs")
	}

	// A bad item late in the index fails the whole decode, naming it.
	bad := append([]byte(nil), b...)
	var item []byte
	item = protowire.AppendTag(item, 2, protowire.BytesType) // a metadata entry …
	item = protowire.AppendBytes(item, []byte{0x12, 0x05})   // … whose value runs past its end
	bad = protowire.AppendTag(bad, 3, protowire.BytesType)
	bad = protowire.AppendBytes(bad, item)
	_, err = c.DeserializeIndex(bad)
	if !errors.Is(err, core.ErrCorrupt) {
		t.Fatalf("error = %v, want ErrCorrupt", err)
	}
	if want := fmt.Sprintf("items[%d]", n); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
}
