package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/foliovec/folio/core"
)

// encoderCases hold for codecs that implement core.IndexStreamEncoder.
func encoderCases() []rule {
	return []rule{
		{"EncodeIndexTo writes the bytes SerializeIndex returns, empty, small and large", needsEncoder(checkEncoderBytes)},
		{"EncodeIndexTo fails where SerializeIndex fails, naming the first bad item", needsEncoder(checkEncoderFails)},
		{"EncodeIndexTo returns a failing writer's error", needsEncoder(checkEncoderWriterFails)},
	}
}

func needsEncoder(run func(t testing.TB, c core.IndexStreamEncoder, ic core.IndexCodec)) func(testing.TB, core.IndexCodec, Capabilities) {
	return func(t testing.TB, c core.IndexCodec, _ Capabilities) {
		enc, ok := c.(core.IndexStreamEncoder)
		if !ok {
			t.Skip("the codec does not implement core.IndexStreamEncoder")
		}
		run(t, enc, c)
	}
}

// sourceOf is d as an IndexSource.
func sourceOf(d core.IndexData) core.IndexSource {
	return core.IndexSource{Version: d.Version, MetadataConfig: d.MetadataConfig, Len: len(d.Items), Item: func(i int) core.IndexItem { return d.Items[i] }}
}

// largeIndex has n items of dims components, over several blocks of any
// streaming encoder.
func largeIndex(n, dims int) core.IndexData {
	d := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}, Items: make([]core.IndexItem, n)}
	for i := range d.Items {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(i*dims+j) / 7
		}
		d.Items[i] = core.IndexItem{ID: fmt.Sprint("item-", i), Metadata: core.Metadata{"k": float64(i % 5), "s": "x"}, Vector: v, Norm: norm(v)}
	}
	return d
}

func checkEncoderBytes(t testing.TB, c core.IndexStreamEncoder, ic core.IndexCodec) {
	for name, d := range map[string]core.IndexData{
		"empty":  {Version: 1},
		"sample": sampleIndex(),
		"large":  largeIndex(5_003, 8),
	} {
		want, err := ic.SerializeIndex(d)
		if err != nil {
			t.Fatalf("%s: SerializeIndex: %v", name, err)
		}
		var got bytes.Buffer
		if err := c.EncodeIndexTo(&got, sourceOf(d)); err != nil {
			t.Errorf("%s: EncodeIndexTo: %v", name, err)
			continue
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: EncodeIndexTo wrote %d bytes that differ from SerializeIndex's %d", name, got.Len(), len(want))
		}
	}
}

func checkEncoderFails(t testing.TB, c core.IndexStreamEncoder, ic core.IndexCodec) {
	d := largeIndex(3_000, 4)
	d.Items[2_500].Vector[1] = float32(math.NaN())
	d.Items[2_900].Vector[0] = float32(math.Inf(1))
	if _, err := ic.SerializeIndex(d); !errors.Is(err, core.ErrInvalidArgument) {
		t.Fatalf("SerializeIndex of a NaN component: %v, want ErrInvalidArgument", err)
	}
	err := c.EncodeIndexTo(&bytes.Buffer{}, sourceOf(d))
	if !errors.Is(err, core.ErrInvalidArgument) {
		t.Fatalf("EncodeIndexTo of a NaN component: %v, want ErrInvalidArgument", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte("item-2500")) {
		t.Errorf("EncodeIndexTo's error %q does not name the first bad item, item-2500", err)
	}
}

// failingWriter fails after n bytes.
type failingWriter struct {
	n   int
	err error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

func checkEncoderWriterFails(t testing.TB, c core.IndexStreamEncoder, _ core.IndexCodec) {
	boom := errors.New("disk full")
	for _, after := range []int{0, 100, 50_000} {
		err := c.EncodeIndexTo(&failingWriter{n: after, err: boom}, sourceOf(largeIndex(3_000, 8)))
		if !errors.Is(err, boom) {
			t.Errorf("a writer failing after %d bytes: %v, want its error", after, err)
		}
	}
}
