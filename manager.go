package folio

import (
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// ManagerConfig returns cfg with this package's defaults where it leaves
// them unset, as Vectra's IndexManager and IndexServer configs are all
// optional: the local file system for Storage, both formats (FormatJSON and
// FormatProtobuf) for Formats, and o200k_base for Tokenizer. It is the
// configuration NewIndexManager uses, and what a gRPC server takes
// (grpcserver.Options{Config: cfg}), so a server needs only a root folder
// too.
func ManagerConfig(cfg manager.Config) (manager.Config, error) {
	opts, err := WithDefaults(cfg.IndexOptions)
	if err != nil {
		return cfg, err
	}
	opts.Codec = nil // each folder's format decides
	cfg.IndexOptions = opts
	if cfg.Formats == nil {
		cfg.Formats = map[string]core.IndexCodec{FormatJSON: codecjson.New(), FormatProtobuf: codecpb.New()}
	}
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return cfg, nil
}

// NewIndexManager returns a manager.Manager for ManagerConfig(cfg): the
// local file system, both formats and o200k_base where cfg leaves them
// unset. The manager reads nothing until Initialize.
func NewIndexManager(cfg manager.Config) (*manager.Manager, error) {
	cfg, err := ManagerConfig(cfg)
	if err != nil {
		return nil, err
	}
	return manager.New(cfg)
}
