package codecpb

import (
	"testing"

	"github.com/foliovec/folio/adapters/codec-pb/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The hand-written wire code uses the field numbers and kinds of the
// committed schema.
func TestSchemaMatchesProto(t *testing.T) {
	msgs := pb.File_index_proto.Messages()
	tests := []struct {
		message, field string
		num            protowire.Number
		kind           protoreflect.Kind
		list, packed   bool
	}{
		{"IndexData", "version", fieldIndexVersion, protoreflect.Uint32Kind, false, false},
		{"IndexData", "metadata_config", fieldIndexMetadataConfig, protoreflect.MessageKind, false, false},
		{"IndexData", "items", fieldIndexItems, protoreflect.MessageKind, true, false},
		{"MetadataConfig", "indexed", fieldConfigIndexed, protoreflect.StringKind, true, false},
		{"IndexItem", "id", fieldItemID, protoreflect.StringKind, false, false},
		{"IndexItem", "metadata", fieldItemMetadata, protoreflect.MessageKind, false, false},
		{"IndexItem", "vector", fieldItemVector, protoreflect.FloatKind, true, true},
		{"IndexItem", "norm", fieldItemNorm, protoreflect.DoubleKind, false, false},
		{"IndexItem", "metadata_file", fieldItemMetadataFile, protoreflect.StringKind, false, false},
		{"MetadataValue", "string_value", fieldValueString, protoreflect.StringKind, false, false},
		{"MetadataValue", "number_value", fieldValueNumber, protoreflect.DoubleKind, false, false},
		{"MetadataValue", "bool_value", fieldValueBool, protoreflect.BoolKind, false, false},
		{"DocumentCatalog", "version", fieldCatalogVersion, protoreflect.Uint32Kind, false, false},
		{"DocumentCatalog", "count", fieldCatalogCount, protoreflect.Uint32Kind, false, false},
		{"DocumentCatalog", "uri_to_id", fieldCatalogURIToID, protoreflect.MessageKind, false, false},
		{"DocumentCatalog", "id_to_uri", fieldCatalogIDToURI, protoreflect.MessageKind, false, false},
		{"DocumentCatalog", "uri_to_hash", fieldCatalogURIToHash, protoreflect.MessageKind, false, false},
	}
	for _, tt := range tests {
		m := msgs.ByName(protoreflect.Name(tt.message))
		if m == nil {
			t.Fatalf("message %s missing from the schema", tt.message)
		}
		f := m.Fields().ByName(protoreflect.Name(tt.field))
		if f == nil {
			t.Errorf("%s.%s missing from the schema", tt.message, tt.field)
			continue
		}
		if f.Number() != tt.num || f.Kind() != tt.kind || f.IsList() != tt.list || f.IsPacked() != tt.packed {
			t.Errorf("%s.%s = number %d kind %v list %v packed %v; code uses %d %v %v %v",
				tt.message, tt.field, f.Number(), f.Kind(), f.IsList(), f.IsPacked(), tt.num, tt.kind, tt.list, tt.packed)
		}
	}
	if f := msgs.ByName("IndexItem").Fields().ByName("metadata_file"); !f.HasPresence() {
		t.Error("IndexItem.metadata_file must be proto3 optional")
	}
	if o := msgs.ByName("MetadataValue").Oneofs().ByName("value"); o == nil || o.Fields().Len() != 3 {
		t.Error("MetadataValue must hold the oneof value of three cases")
	}
	for _, mf := range []struct{ msg, field string }{{"IndexItem", "metadata"}, {"DocumentCatalog", "uri_to_id"}, {"DocumentCatalog", "id_to_uri"}, {"DocumentCatalog", "uri_to_hash"}} {
		f := msgs.ByName(protoreflect.Name(mf.msg)).Fields().ByName(protoreflect.Name(mf.field))
		if !f.IsMap() || f.MapKey().Number() != fieldMapKey || f.MapValue().Number() != fieldMapValue || f.MapKey().Kind() != protoreflect.StringKind {
			t.Errorf("%s.%s must be a map with string keys", mf.msg, mf.field)
		}
	}
}
