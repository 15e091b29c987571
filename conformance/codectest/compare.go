package codectest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/foliovec/folio/core"

	"github.com/foliovec/folio/core/jsvalue"
)

// how says how strictly two decoded values are compared.
type how struct {
	float32Vectors    bool // vector components equal exactly, else to a relative 1e-6
	nonScalars        bool // compare metadata values that are not string, number or bool
	keepsEmptyIndexed bool // nil and empty Indexed differ
	keepsEmptyHash    bool // nil and empty URIToHash differ
}

// indexHow is the comparison for index round trips under caps.
func indexHow(caps Capabilities) how {
	return how{
		float32Vectors:    caps.Float32Vectors,
		nonScalars:        caps.PreservesNonScalarMetadata,
		keepsEmptyIndexed: caps.KeepsEmptyIndexed,
		keepsEmptyHash:    caps.KeepsEmptyURIToHash,
	}
}

// stableHow compares a value decoded by the codec with the same value after
// one more encode and decode: everything the codec produced must survive.
func stableHow(caps Capabilities) how {
	return how{
		float32Vectors:    caps.Float32Vectors,
		nonScalars:        true,
		keepsEmptyIndexed: caps.KeepsEmptyIndexed,
		keepsEmptyHash:    caps.KeepsEmptyURIToHash,
	}
}

// diffIndex describes the first difference between want and got, or
// returns nil when they are equal under h.
func diffIndex(want, got core.IndexData, h how) error {
	if want.Version != got.Version {
		return fmt.Errorf("version: got %d, want %d", got.Version, want.Version)
	}
	if err := diffIndexed(want.MetadataConfig.Indexed, got.MetadataConfig.Indexed, h); err != nil {
		return err
	}
	if len(want.Items) != len(got.Items) {
		return fmt.Errorf("items: got %d, want %d", len(got.Items), len(want.Items))
	}
	for i := range want.Items {
		if err := diffItem(want.Items[i], got.Items[i], h); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
	}
	return nil
}

func diffIndexed(want, got []string, h how) error {
	if h.keepsEmptyIndexed && (want == nil) != (got == nil) {
		return fmt.Errorf("metadata_config.indexed: got %#v, want %#v (nil and empty differ)", got, want)
	}
	if !slices.Equal(want, got) {
		return fmt.Errorf("metadata_config.indexed: got %q, want %q", got, want)
	}
	return nil
}

func diffItem(want, got core.IndexItem, h how) error {
	if want.ID != got.ID {
		return fmt.Errorf("id: got %q, want %q", got.ID, want.ID)
	}
	if want.MetadataFile != got.MetadataFile {
		return fmt.Errorf("metadataFile: got %q, want %q", got.MetadataFile, want.MetadataFile)
	}
	if !sameFloat64(want.Norm, got.Norm) {
		return fmt.Errorf("norm: got %v, want %v", got.Norm, want.Norm)
	}
	if len(want.Vector) != len(got.Vector) {
		return fmt.Errorf("vector: got %d components, want %d", len(got.Vector), len(want.Vector))
	}
	for i, w := range want.Vector {
		if !sameComponent(w, got.Vector[i], h.float32Vectors) {
			return fmt.Errorf("vector[%d]: got %v, want %v", i, got.Vector[i], w)
		}
	}
	if err := diffMetadata(want.Metadata, got.Metadata, h.nonScalars); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	return nil
}

// diffMetadata compares metadata; nil and empty are equal. Numbers of any
// Go type in want are compared as float64; values that are not string,
// number or bool are compared only when nonScalars is set.
func diffMetadata(want, got core.Metadata, nonScalars bool) error {
	if len(want) != len(got) {
		return fmt.Errorf("got %d keys %q, want %d keys %q", len(got), keys(got), len(want), keys(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("key %q missing", k)
		}
		if err := diffValue(w, g, nonScalars); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	return nil
}

func diffValue(want, got any, nonScalars bool) error {
	if wn, ok := jsvalue.Number(want); ok {
		gn, ok := got.(float64)
		if !ok {
			return fmt.Errorf("got %T %#v, want float64 %v", got, got, wn)
		}
		if !sameFloat64(wn, gn) {
			return fmt.Errorf("got %v, want %v", gn, wn)
		}
		return nil
	}
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); !ok || g != w {
			return fmt.Errorf("got %T %#v, want string %q", got, got, w)
		}
		return nil
	case bool:
		if g, ok := got.(bool); !ok || g != w {
			return fmt.Errorf("got %T %#v, want bool %v", got, got, w)
		}
		return nil
	}
	if !nonScalars {
		return nil
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("got %T %#v, want %T %#v", got, got, want, want)
	}
	return nil
}

// diffCatalog describes the first difference between two catalogs, or
// returns nil. A nil URIToHash must stay nil.
func diffCatalog(want, got core.DocumentCatalog, h how) error {
	if want.Version != got.Version {
		return fmt.Errorf("version: got %d, want %d", got.Version, want.Version)
	}
	if want.Count != got.Count {
		return fmt.Errorf("count: got %d, want %d", got.Count, want.Count)
	}
	if err := diffStringMap("uriToId", want.URIToID, got.URIToID); err != nil {
		return err
	}
	if err := diffStringMap("idToUri", want.IDToURI, got.IDToURI); err != nil {
		return err
	}
	if want.URIToHash == nil && got.URIToHash != nil {
		return fmt.Errorf("uriToHash: got %v, want nil (absent)", got.URIToHash)
	}
	if h.keepsEmptyHash && want.URIToHash != nil && got.URIToHash == nil {
		return fmt.Errorf("uriToHash: got nil, want an empty non-nil map")
	}
	return diffStringMap("uriToHash", want.URIToHash, got.URIToHash)
}

func diffStringMap(name string, want, got map[string]string) error {
	if len(want) != len(got) {
		return fmt.Errorf("%s: got %d entries, want %d", name, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("%s: key %q missing", name, k)
		}
		if g != w {
			return fmt.Errorf("%s[%q]: got %q, want %q", name, k, g, w)
		}
	}
	return nil
}

// sameFloat64 is == with NaN equal to NaN.
func sameFloat64(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

func sameComponent(want, got float32, exact bool) bool {
	if want == got || (isNaN32(want) && isNaN32(got)) {
		return true
	}
	if exact || math.IsInf(float64(want), 0) {
		return false
	}
	diff := math.Abs(float64(want) - float64(got))
	return diff <= 1e-6*math.Max(1, math.Abs(float64(want)))
}

func isNaN32(f float32) bool { return f != f }

func keys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
