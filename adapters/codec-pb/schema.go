package codecpb

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers of internal/pb/index.proto (Vectra's
// src/codecs/schemas/index.proto). TestSchemaMatchesProto checks them
// against the generated descriptors.
const (
	// IndexData
	fieldIndexVersion        protowire.Number = 1 // uint32
	fieldIndexMetadataConfig protowire.Number = 2 // MetadataConfig
	fieldIndexItems          protowire.Number = 3 // repeated IndexItem

	// MetadataConfig
	fieldConfigIndexed protowire.Number = 1 // repeated string

	// IndexItem
	fieldItemID           protowire.Number = 1 // string
	fieldItemMetadata     protowire.Number = 2 // map<string, MetadataValue>
	fieldItemVector       protowire.Number = 3 // repeated float, packed
	fieldItemNorm         protowire.Number = 4 // double
	fieldItemMetadataFile protowire.Number = 5 // optional string

	// MetadataValue, oneof value
	fieldValueString protowire.Number = 1 // string
	fieldValueNumber protowire.Number = 2 // double
	fieldValueBool   protowire.Number = 3 // bool

	// DocumentCatalog
	fieldCatalogVersion   protowire.Number = 1 // uint32
	fieldCatalogCount     protowire.Number = 2 // uint32
	fieldCatalogURIToID   protowire.Number = 3 // map<string, string>
	fieldCatalogIDToURI   protowire.Number = 4 // map<string, string>
	fieldCatalogURIToHash protowire.Number = 5 // map<string, string>

	// every map entry
	fieldMapKey   protowire.Number = 1
	fieldMapValue protowire.Number = 2
)
