package codecjson

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/foliovec/folio/core"

	"github.com/foliovec/folio/core/jsvalue"
)

// appendIndex appends d in Vectra's shape and key order:
//
//	{"version":1,"metadata_config":{},"items":[{"id":…,"metadata":{…},"vector":[…],"norm":…,"metadataFile":…}]}
//
// metadata_config is {} when Indexed is nil and {"indexed":[…]} otherwise;
// metadataFile is left out when "".
func appendIndex(b []byte, d core.IndexData) ([]byte, error) {
	b = appendIndexHead(b, d)
	b, err := appendItems(b, d.Items, 0)
	if err != nil {
		return nil, err
	}
	return append(b, "]}"...), nil
}

// appendIndexHead appends everything before the first item.
func appendIndexHead(b []byte, d core.IndexData) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(d.Version), 10)
	b = append(b, `,"metadata_config":{`...)
	if d.MetadataConfig.Indexed != nil {
		b = append(b, `"indexed":[`...)
		for i, k := range d.MetadataConfig.Indexed {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsvalue.AppendQuote(b, k)
		}
		b = append(b, ']')
	}
	return append(b, `},"items":[`...)
}

// appendItems appends items separated by commas; base is the index of the
// first, for error messages.
func appendItems(b []byte, items []core.IndexItem, base int) ([]byte, error) {
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendItem(b, &items[i]); err != nil {
			return nil, fmt.Errorf("items[%d]: %w", base+i, err)
		}
	}
	return b, nil
}

// parallelEncodeBytes is the expected output size from which encodeIndex
// splits the work across goroutines.
const parallelEncodeBytes = 1 << 20

// encodeIndex encodes d into one buffer. Large indexes are encoded by up to
// GOMAXPROCS goroutines, each on a contiguous run of items into its own
// region of one buffer sized from indexSizeHint; the regions are then moved
// together. A run that outgrows its region continues in a buffer of its own,
// and the runs are then joined into a new buffer instead.
func encodeIndex(d core.IndexData) ([]byte, error) {
	hint := indexSizeHint(d.Items)
	workers := min(runtime.GOMAXPROCS(0), len(d.Items), hint/parallelEncodeBytes+1)
	if workers <= 1 {
		return appendIndex(make([]byte, 0, hint+128), d)
	}
	head := appendIndexHead(nil, d)
	per := (len(d.Items) + workers - 1) / workers
	runs := make([][]core.IndexItem, workers)
	starts := make([]int, workers)
	size := len(head)
	for w := range workers {
		runs[w] = d.Items[min(w*per, len(d.Items)):min((w+1)*per, len(d.Items))]
		starts[w] = size + 1 // room for the comma before the run
		size = starts[w] + indexSizeHint(runs[w])
	}
	buf := make([]byte, size+2)
	parts := make([][]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		region := buf[starts[w] : starts[w] : starts[w]+indexSizeHint(runs[w])]
		wg.Go(func() {
			parts[w], errs[w] = appendItems(region, runs[w], min(w*per, len(d.Items)))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in item order
		}
	}
	inPlace := true
	for w, p := range parts {
		if len(p) > 0 && &p[0] != &buf[starts[w]] {
			inPlace = false
		}
	}
	if !inPlace {
		total := len(head) + workers + 2
		for _, p := range parts {
			total += len(p)
		}
		buf = make([]byte, 0, total)
	}
	b := append(buf[:0], head...)
	for w, p := range parts {
		if w > 0 && len(p) > 0 {
			b = append(b, ',')
		}
		// In place, p lies at or after len(b): copy moves it down.
		b = append(b, p...)
	}
	return append(b, "]}"...), nil
}

func appendItem(b []byte, it *core.IndexItem) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = jsvalue.AppendQuote(b, it.ID)
	b = append(b, `,"metadata":`...)
	b, err := appendObject(b, it.Metadata)
	if err != nil {
		return nil, fmt.Errorf("item %q metadata: %w", it.ID, err)
	}
	b = append(b, `,"vector":[`...)
	for i, x := range it.Vector {
		if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
			return nil, fmt.Errorf("item %q vector[%d] is %v: %w", it.ID, i, x, core.ErrInvalidArgument)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = jsvalue.AppendFloat32(b, x)
	}
	b = append(b, `],"norm":`...)
	if !isFinite(it.Norm) {
		return nil, fmt.Errorf("item %q norm is %v: %w", it.ID, it.Norm, core.ErrInvalidArgument)
	}
	b = jsvalue.AppendJSONNumber(b, it.Norm)
	if it.MetadataFile != "" {
		b = append(b, `,"metadataFile":`...)
		b = jsvalue.AppendQuote(b, it.MetadataFile)
	}
	return append(b, '}'), nil
}

// indexSizeHint guesses the encoded size of items, so that one allocation
// usually holds them: a vector component takes 13 bytes at most for most
// embeddings (about 12.5 with its comma for unit vectors).
func indexSizeHint(items []core.IndexItem) int {
	n := 0
	for i := range items {
		it := &items[i]
		n += 64 + len(it.ID) + len(it.MetadataFile) + 13*len(it.Vector) + 32*len(it.Metadata)
	}
	return n
}

// appendCatalog appends c in Vectra's shape and key order:
//
//	{"version":1,"count":2,"uriToId":{…},"idToUri":{…},"uriToHash":{…}}
//
// uriToHash is left out when URIToHash is nil.
func appendCatalog(b []byte, c core.DocumentCatalog) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(c.Version), 10)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(c.Count), 10)
	b = append(b, `,"uriToId":`...)
	b = appendStringMap(b, c.URIToID)
	b = append(b, `,"idToUri":`...)
	b = appendStringMap(b, c.IDToURI)
	if c.URIToHash != nil {
		b = append(b, `,"uriToHash":`...)
		b = appendStringMap(b, c.URIToHash)
	}
	return append(b, '}')
}

func appendStringMap(b []byte, m map[string]string) []byte {
	var small [8]string
	b = append(b, '{')
	for i, k := range objectKeys(small[:0], m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsvalue.AppendQuote(b, k)
		b = append(b, ':')
		b = jsvalue.AppendQuote(b, m[k])
	}
	return append(b, '}')
}

// appendObject appends m as a JSON object with its keys in [objectKeys]
// order. A nil map is written as {}.
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	var small [8]string
	b = append(b, '{')
	for i, k := range objectKeys(small[:0], m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsvalue.AppendQuote(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
	}
	return append(b, '}'), nil
}

// appendValue appends a metadata value: strings, bools and nil as
// themselves, every Go number as a float64, []any and map[string]any
// recursively, and any other value as encoding/json would marshal it.
// NaN and ±Inf are an error wrapping core.ErrInvalidArgument.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return jsvalue.AppendQuote(b, v), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case nil:
		return append(b, "null"...), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendObject(b, v)
	case core.Metadata:
		return appendObject(b, v)
	}
	if f, ok := jsvalue.Number(v); ok {
		if !isFinite(f) {
			return nil, fmt.Errorf("number %v: %w", f, core.ErrInvalidArgument)
		}
		return jsvalue.AppendJSONNumber(b, f), nil
	}
	return appendMarshaled(b, v)
}
