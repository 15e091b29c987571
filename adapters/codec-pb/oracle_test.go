package codecpb_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/adapters/codec-pb/internal/pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The generated code of internal/pb is the oracle for the hand-written
// wire code: on any index or catalog, our bytes are the deterministic
// marshalling of the equivalent generated message, and decoding bytes that
// the generated code wrote gives what the generated code reads.

func randomString(r *rand.Rand) string {
	alphabet := []string{"a", "b", "z", "0", " ", "\"", "\\", "\n", "é", "日", "🎉", "\u2028", "\x00"}
	n := r.IntN(6)
	s := ""
	for range n {
		s += alphabet[r.IntN(len(alphabet))]
	}
	return s
}

func randomIndex(r *rand.Rand) core.IndexData {
	d := core.IndexData{Version: r.IntN(3)}
	if r.IntN(3) > 0 {
		for range r.IntN(3) {
			d.MetadataConfig.Indexed = append(d.MetadataConfig.Indexed, randomString(r))
		}
	}
	for range r.IntN(5) {
		it := core.IndexItem{ID: randomString(r)}
		if r.IntN(4) > 0 {
			it.Metadata = core.Metadata{}
			for range r.IntN(4) {
				switch r.IntN(3) {
				case 0:
					it.Metadata[randomString(r)] = randomString(r)
				case 1:
					it.Metadata[randomString(r)] = []float64{0, -1, 2020, 0.1, 1e300}[r.IntN(5)]
				case 2:
					it.Metadata[randomString(r)] = r.IntN(2) == 0
				}
			}
		}
		for range r.IntN(6) {
			it.Vector = append(it.Vector, float32(r.NormFloat64()))
		}
		it.Norm = []float64{0, 1, r.Float64(), math.Copysign(0, -1)}[r.IntN(4)]
		if r.IntN(2) == 0 {
			it.MetadataFile = randomString(r) + ".pb"
		}
		d.Items = append(d.Items, it)
	}
	return d
}

// toGenerated is the equivalent generated message.
func toGenerated(d core.IndexData) *pb.IndexData {
	m := &pb.IndexData{Version: uint32(d.Version), MetadataConfig: &pb.MetadataConfig{Indexed: d.MetadataConfig.Indexed}}
	for _, it := range d.Items {
		pi := &pb.IndexItem{Id: it.ID, Vector: it.Vector, Norm: it.Norm}
		if it.MetadataFile != "" {
			pi.MetadataFile = proto.String(it.MetadataFile)
		}
		if len(it.Metadata) > 0 {
			pi.Metadata = map[string]*pb.MetadataValue{}
		}
		for k, v := range it.Metadata {
			switch x := v.(type) {
			case string:
				pi.Metadata[k] = &pb.MetadataValue{Value: &pb.MetadataValue_StringValue{StringValue: x}}
			case float64:
				pi.Metadata[k] = &pb.MetadataValue{Value: &pb.MetadataValue_NumberValue{NumberValue: x}}
			case bool:
				pi.Metadata[k] = &pb.MetadataValue{Value: &pb.MetadataValue_BoolValue{BoolValue: x}}
			default:
				panic(fmt.Sprintf("unexpected %T", v))
			}
		}
		m.Items = append(m.Items, pi)
	}
	return m
}

// finite is f, or 0 when f is NaN or ±Inf.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// fromGenerated reads a generated message the way Vectra's reader does,
// with NaN and ±Inf read as 0.
func fromGenerated(m *pb.IndexData) core.IndexData {
	d := core.IndexData{Version: int(m.GetVersion()), MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{}}
	d.MetadataConfig.Indexed = append(d.MetadataConfig.Indexed, m.GetMetadataConfig().GetIndexed()...)
	for _, pi := range m.GetItems() {
		it := core.IndexItem{ID: pi.GetId(), Metadata: core.Metadata{}, Norm: finite(pi.GetNorm()), MetadataFile: pi.GetMetadataFile()}
		for _, x := range pi.GetVector() {
			it.Vector = append(it.Vector, float32(finite(float64(x))))
		}
		for k, v := range pi.GetMetadata() {
			switch {
			case v.GetNumberValue() != 0 && math.IsInf(v.GetNumberValue(), 0):
				it.Metadata[k] = float64(0)
			case v.GetStringValue() != "":
				it.Metadata[k] = v.GetStringValue()
			case v.GetNumberValue() != 0 && !math.IsNaN(v.GetNumberValue()):
				it.Metadata[k] = v.GetNumberValue()
			case v.GetBoolValue():
				it.Metadata[k] = true
			default:
				switch v.GetValue().(type) {
				case *pb.MetadataValue_NumberValue:
					it.Metadata[k] = float64(0)
				case *pb.MetadataValue_BoolValue:
					it.Metadata[k] = false
				default:
					it.Metadata[k] = ""
				}
			}
		}
		d.Items = append(d.Items, it)
	}
	return d
}

func TestIndexEncodingMatchesGeneratedCode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	c := codecpb.New()
	for i := range 2000 {
		d := randomIndex(r)
		got, err := c.SerializeIndex(d)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(toGenerated(d))
		if err != nil {
			t.Fatalf("case %d: generated marshal: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: bytes differ from the generated code's\n got %x\nwant %x\n%#v", i, got, want, d)
		}
		var m pb.IndexData
		if err := proto.Unmarshal(want, &m); err != nil {
			t.Fatal(err)
		}
		decoded, err := c.DeserializeIndex(want)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if ref := fromGenerated(&m); !reflect.DeepEqual(decoded, ref) {
			t.Fatalf("case %d: decoded\n %#v\nwant\n %#v", i, decoded, ref)
		}
	}
}

func TestDecodingVectraFilesMatchesGeneratedCode(t *testing.T) {
	c := codecpb.New()
	for _, f := range []string{"items-protobuf/index.pb", "items-migrated-protobuf/index.pb", "docs-protobuf/index.pb"} {
		raw := testkit.ReadFixture(t, f)
		var m pb.IndexData
		if err := proto.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		got, err := c.DeserializeIndex(raw)
		if err != nil {
			t.Fatal(err)
		}
		if want := fromGenerated(&m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hand-written and generated decoders disagree", f)
		}
	}
	raw := testkit.ReadFixture(t, "docs-protobuf/catalog.pb")
	var m pb.DocumentCatalog
	if err := proto.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	got, err := c.DeserializeCatalog(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.URIToID, m.UriToId) || !reflect.DeepEqual(got.IDToURI, m.IdToUri) || !reflect.DeepEqual(got.URIToHash, m.UriToHash) ||
		got.Version != int(m.Version) || got.Count != int(m.Count) {
		t.Errorf("catalog: hand-written and generated decoders disagree")
	}
}

func TestCatalogEncodingMatchesGeneratedCode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	c := codecpb.New()
	randomMap := func() map[string]string {
		if r.IntN(4) == 0 {
			return nil
		}
		m := map[string]string{}
		for range r.IntN(5) {
			m[randomString(r)] = randomString(r)
		}
		return m
	}
	for i := range 1000 {
		cat := core.DocumentCatalog{Version: r.IntN(3), Count: r.IntN(300), URIToID: randomMap(), IDToURI: randomMap(), URIToHash: randomMap()}
		got, err := c.SerializeCatalog(cat)
		if err != nil {
			t.Fatal(err)
		}
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(&pb.DocumentCatalog{
			Version: uint32(cat.Version), Count: uint32(cat.Count), UriToId: cat.URIToID, IdToUri: cat.IDToURI, UriToHash: cat.URIToHash,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: bytes differ from the generated code's\n got %x\nwant %x", i, got, want)
		}
	}
}

// metadataEntry builds the wire bytes of an index with one item whose
// metadata map holds key → the given MetadataValue message bytes.
func indexWithValue(value []byte) []byte {
	var v []byte
	v = protowire.AppendTag(v, 1, protowire.BytesType)
	v = protowire.AppendString(v, "k")
	v = protowire.AppendTag(v, 2, protowire.BytesType)
	v = protowire.AppendBytes(v, value)
	var item []byte
	item = protowire.AppendTag(item, 1, protowire.BytesType)
	item = protowire.AppendString(item, "id")
	item = protowire.AppendTag(item, 2, protowire.BytesType)
	item = protowire.AppendBytes(item, v)
	var b []byte
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendBytes(b, item)
}

func stringCase(s string) []byte {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func numberCase(f float64) []byte {
	b := protowire.AppendTag(nil, 2, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(f))
}

func boolCase(v bool) []byte {
	b := protowire.AppendTag(nil, 3, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

// As Vectra reads it: a non-empty string wins, then a non-zero number, then true;
// otherwise the case decides; no case set reads as "".
func TestMetadataValueReadRule(t *testing.T) {
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name  string
		value []byte
		want  any
	}{
		{"a string reads as itself", stringCase("x"), "x"},
		{"an empty string reads as empty string", stringCase(""), ""},
		{"a number reads as itself", numberCase(2.5), 2.5},
		{"zero reads as zero", numberCase(0), float64(0)},
		{"negative zero reads as zero", numberCase(math.Copysign(0, -1)), float64(0)},
		{"NaN reads as zero, as JavaScript's falsy NaN does", numberCase(math.NaN()), float64(0)},
		{"infinity reads as zero (Vectra keeps it; Folio cannot write it back)", numberCase(math.Inf(1)), float64(0)},
		{"true reads as true", boolCase(true), true},
		{"false reads as false", boolCase(false), false},
		{"no case set reads as empty string", nil, ""},
		{"a non-empty string wins over a later number", join(stringCase("s"), numberCase(3)), "s"},
		{"a non-zero number wins over a later true", join(numberCase(3), boolCase(true)), float64(3)},
		{"true wins over a later empty string", join(boolCase(true), stringCase("")), true},
		{"otherwise the last case decides: number", join(stringCase(""), numberCase(0)), float64(0)},
		{"otherwise the last case decides: bool", join(numberCase(0), boolCase(false)), false},
		{"unknown fields are skipped", join(protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1), stringCase("x")), "x"},
		{"a case with the wrong wire type is an unknown field", protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := codecpb.New().DeserializeIndex(indexWithValue(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			got := d.Items[0].Metadata["k"]
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// Readers accept every valid encoding of a repeated float, not only the
// packed one Vectra writes, and replace bad UTF-8 rather than failing.
func TestDecodeAcceptsEquivalentEncodings(t *testing.T) {
	var item []byte
	item = protowire.AppendTag(item, 1, protowire.BytesType)
	item = protowire.AppendString(item, "a\xffb")
	for _, f := range []float32{1, 2} {
		item = protowire.AppendTag(item, 3, protowire.Fixed32Type)
		item = protowire.AppendFixed32(item, math.Float32bits(f))
	}
	item = protowire.AppendTag(item, 3, protowire.BytesType)
	item = protowire.AppendBytes(item, protowire.AppendFixed32(nil, math.Float32bits(3)))
	var b []byte
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, item)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "x"))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "y"))
	d, err := codecpb.New().DeserializeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	want := core.IndexData{MetadataConfig: core.MetadataConfig{Indexed: []string{"x", "y"}}, Items: []core.IndexItem{
		{ID: "a\uFFFDb", Metadata: core.Metadata{}, Vector: []float32{1, 2, 3}},
	}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got  %#v\nwant %#v", d, want)
	}
}

func TestNonFiniteNumbersReadAsZero(t *testing.T) {
	var m pb.IndexData
	m.Items = []*pb.IndexItem{{
		Id:     "x",
		Vector: []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 2},
		Norm:   math.NaN(),
		Metadata: map[string]*pb.MetadataValue{
			"inf": {Value: &pb.MetadataValue_NumberValue{NumberValue: math.Inf(-1)}},
		},
	}}
	b, err := proto.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := codecpb.New().DeserializeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	want := core.IndexItem{ID: "x", Vector: []float32{0, 0, 0, 2}, Norm: 0, Metadata: core.Metadata{"inf": float64(0)}}
	if !reflect.DeepEqual(d.Items[0], want) {
		t.Errorf("got %#v, want %#v", d.Items[0], want)
	}
	if _, err := codecpb.New().SerializeIndex(d); err != nil {
		t.Errorf("what was decoded does not encode again: %v", err)
	}
}
