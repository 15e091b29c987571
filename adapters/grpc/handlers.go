package grpcserver

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core/manager"
)

// defaultTopK is QueryItems' top_k when it is 0, as Vectra's handler has
// it. The other zero values of requests (max_documents, max_chunks, a
// document index's chunk_size) are left to core, whose defaults are
// Vectra's.
const defaultTopK = 10

// service implements vectra.VectraService. Each handler validates its
// request in Vectra's order, with Vectra's messages.
type service struct {
	vectrapb.UnimplementedVectraServiceServer
	s *IndexServer
}

func (v *service) manager() *manager.Manager { return v.s.manager }

// errIndexNameRequired is Vectra's answer to a request without an index
// name; every handler checks it first, in Vectra's order.
func errIndexNameRequired() error { return invalid("index_name is required") }

// index looks up a served index: INVALID_ARGUMENT "index_name is required"
// for none, NOT_FOUND "Index not found: <name>" for an unknown one.
func (v *service) index(name string) (*manager.Index, error) {
	if name == "" {
		return nil, errIndexNameRequired()
	}
	mi, ok := v.manager().GetIndex(name)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Index not found: %s", name)
	}
	return mi, nil
}

// documentIndex is index for a document index: FAILED_PRECONDITION
// `Index "<name>" is not a document index` for a plain one.
func (v *service) documentIndex(name string) (*manager.Index, error) {
	mi, err := v.index(name)
	if err != nil {
		return nil, err
	}
	if !mi.IsDocumentIndex() {
		return nil, status.Errorf(codes.FailedPrecondition, "Index %q is not a document index", name)
	}
	return mi, nil
}

// write runs fn holding the index's write lock.
func (v *service) write(ctx context.Context, mi *manager.Index, fn func() error) error {
	unlock, err := v.s.writes.lock(ctx, mi.Index)
	if err != nil {
		return toStatus(err)
	}
	defer unlock()
	return toStatus(fn())
}
