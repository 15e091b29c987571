//go:build js && wasm

package browser_test

import (
	"context"
	"log/slog"
	"reflect"
	"testing"
	"time"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

// Every field of core.IndexOptions reaches the indexes the browser facade
// makes (a document index reads its texts itself, so DocReader is its
// own); found by reflection, so a new option is checked without anyone
// remembering to.
func TestEveryIndexOptionReachesTheBrowserFacade(t *testing.T) {
	typ := reflect.TypeFor[core.IndexOptions]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		var val reflect.Value
		switch f.Type {
		case reflect.TypeFor[core.FileStorage]():
			val = reflect.ValueOf(storageidb.New(&storageidb.Options{Name: dbName(t)}))
		case reflect.TypeFor[core.IndexCodec]():
			val = reflect.ValueOf(codecjson.New()) // another value than the default one
		case reflect.TypeFor[*slog.Logger]():
			val = reflect.ValueOf(slog.New(slog.DiscardHandler))
		case reflect.TypeFor[time.Duration]():
			val = reflect.ValueOf(1234 * time.Millisecond)
		case reflect.TypeFor[core.ScanCodes]():
			val = reflect.ValueOf(core.CodesInt4)
		case reflect.TypeFor[core.KeywordScorer]():
			val = reflect.ValueOf(core.KeywordScorer(&sampleScorer{}))
		case reflect.TypeFor[*core.FieldWeights]():
			val = reflect.ValueOf(&core.FieldWeights{Headings: 3, Title: 4, Name: 0.5})
		default:
			switch f.Type.Kind() {
			case reflect.Bool:
				val = reflect.ValueOf(true)
			case reflect.Int:
				val = reflect.ValueOf(7)
			case reflect.Float64:
				val = reflect.ValueOf(0.95)
			case reflect.String:
				val = reflect.ValueOf("custom.index")
			case reflect.Func:
				val = reflect.MakeFunc(f.Type, func([]reflect.Value) []reflect.Value {
					return []reflect.Value{reflect.ValueOf(""), reflect.Zero(reflect.TypeFor[error]())}
				})
			default:
				t.Fatalf("core.IndexOptions.%s: no sample value for %v; add one here", f.Name, f.Type)
			}
		}
		var opts browser.IndexOptions
		reflect.ValueOf(&opts).Elem().Field(i).Set(val)
		same := func(got reflect.Value) bool {
			switch {
			case got.Kind() == reflect.Interface:
				return got.Interface() == val.Interface()
			case val.Kind() == reflect.Func, val.Kind() == reflect.Pointer:
				return got.Pointer() == val.Pointer()
			}
			return reflect.DeepEqual(got.Interface(), val.Interface())
		}
		ix, err := browser.NewLocalIndex("opts", &opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(ix.Options()).Field(i); !same(got) {
			t.Errorf("browser.NewLocalIndex: IndexOptions.%s does not reach the index", f.Name)
		}
		d, err := browser.NewLocalDocumentIndex(browser.DocumentIndexConfig{FolderPath: "opts", IndexOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(d.Options()).Field(i); f.Name != "DocReader" && !same(got) {
			t.Errorf("browser.NewLocalDocumentIndex: IndexOptions.%s does not reach the index", f.Name)
		}
	}
}

// sampleScorer is a KeywordScorer to set, compared by identity.
type sampleScorer struct{ _ int }

func (*sampleScorer) ScoreKeywords(context.Context, string, []string) ([]float64, error) {
	return nil, nil
}
