package folio

import (
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// NewIndexManager returns a core.IndexManager with Folio's defaults for
// what cfg leaves unset: the local file system as Storage, both formats
// (FormatJSON with codec-json, FormatProtobuf with codec-pb) and the
// o200k_base tokenizer for document indexes. Call Initialize on it to load
// the indexes.
func NewIndexManager(cfg core.IndexManagerConfig) (*core.IndexManager, error) {
	if cfg.Storage == nil {
		local, err := storagefs.New(nil)
		if err != nil {
			return nil, err
		}
		cfg.Storage = local
	}
	if cfg.Formats == nil {
		cfg.Formats = map[string]core.IndexCodec{FormatJSON: codecjson.New(), FormatProtobuf: codecpb.New()}
	}
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewIndexManager(cfg)
}
