package codectest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// The byte checks pass the reference codec on valid, empty and corrupt
// bytes, and report each broken codec.
func TestCheckBytesCatchesBrokenDecoders(t *testing.T) {
	index, err := ref.SerializeIndex(core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Vector: []float32{1, 2}, Norm: 2.236}}})
	if err != nil {
		t.Fatal(err)
	}
	catalog := []byte(`{"version":1,"count":0,"uriToId":{},"idToUri":{}}`)
	metadata := []byte(`{"a":1}`)
	for _, b := range [][]byte{index, nil, []byte("{"), []byte("\x00garbage")} {
		if _, _, err := codectest.CheckIndexBytes(ref, b); err != nil {
			t.Errorf("CheckIndexBytes(reference, %q) = %v", b, err)
		}
		if _, _, err := codectest.CheckIndexBytes(placedArenaCodec(), b); err != nil {
			t.Errorf("CheckIndexBytes(arena reference, %q) = %v", b, err)
		}
	}
	if d, ok, err := codectest.CheckIndexBytes(ref, index); !ok || err != nil || len(d.Items) != 1 {
		t.Errorf("CheckIndexBytes(reference) = %d items, %v, %v; want 1, true, nil", len(d.Items), ok, err)
	}
	if err := codectest.CheckCatalogBytes(ref, catalog); err != nil {
		t.Error(err)
	}
	if err := codectest.CheckMetadataBytes(ref, metadata); err != nil {
		t.Error(err)
	}

	bare := errors.New("bad bytes")
	unwrapped := broken{deserializeIdx: func([]byte) (core.IndexData, error) { return core.IndexData{}, bare }}
	if _, _, err := codectest.CheckIndexBytes(unwrapped, index); err == nil || !strings.Contains(err.Error(), "ErrCorrupt") {
		t.Errorf("an error not wrapping core.ErrCorrupt: %v", err)
	}
	panics := broken{deserializeCat: func([]byte) (core.DocumentCatalog, error) { panic("boom") }}
	if err := codectest.CheckCatalogBytes(panics, catalog); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("a panicking decoder: %v", err)
	}
	n := 0
	unstable := broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
		n++
		return []byte(strings.Repeat(" ", n%2) + `{"a":1}`), nil
	}}
	if err := codectest.CheckMetadataBytes(unstable, metadata); err == nil || !strings.Contains(err.Error(), "not stable") {
		t.Errorf("an encoder whose bytes change: %v", err)
	}
	lossy := broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
		return ref.SerializeIndex(mapItems(d, func(it *core.IndexItem) { it.Norm = 0 }))
	}}
	if _, _, err := codectest.CheckIndexBytes(lossy, index); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("an encoder that drops the norm: %v", err)
	}
	if _, _, err := codectest.CheckIndexBytes(copyingArena{}, index); err == nil {
		t.Error("an arena decoder whose vectors are not its rows passes")
	}
}

func placedArenaCodec() core.IndexCodec { return placedArena{Codec: reference.Codec{}, capped: true} }
