package grpcserver

import "github.com/foliovec/folio/adapters/grpc/vectrapb"

// The checks a request passes before its index is looked up: one
// check<Rpc>Request for every RPC, each handler's first call, in Vectra's
// order and with Vectra's messages. What Vectra checks after the lookup
// (QueryDocuments' query, a vector or a text to embed) is checked there,
// with the messages below.

// errQueryRequired is Vectra's answer to a QueryDocuments call without a
// query, after the index lookup.
func errQueryRequired() error { return invalid("query is required") }

// errNoVector is Vectra's answer to an item or a query with neither a
// vector nor a text to embed, after the index lookup.
func errNoVector() error { return invalid("Either text or vector must be provided") }

// checkIndexName is the check of the calls that need only an index name.
func checkIndexName(name string) error {
	if name == "" {
		return errIndexNameRequired()
	}
	return nil
}

// checkNothing is the check of the calls Vectra does not validate
// (ListIndexes, Healthcheck, Shutdown).
func checkNothing() error { return nil }

func checkDeleteIndexRequest(req *vectrapb.DeleteIndexRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkListIndexesRequest(*vectrapb.ListIndexesRequest) error { return checkNothing() }

func checkInsertItemRequest(req *vectrapb.InsertItemRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkBatchInsertItemsRequest(req *vectrapb.BatchInsertItemsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkListItemsRequest(req *vectrapb.ListItemsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkQueryItemsRequest(req *vectrapb.QueryItemsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkQueryDocumentsRequest(req *vectrapb.QueryDocumentsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkListDocumentsRequest(req *vectrapb.ListDocumentsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkGetIndexStatsRequest(req *vectrapb.GetIndexStatsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkGetCatalogStatsRequest(req *vectrapb.GetCatalogStatsRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkHealthcheckRequest(*vectrapb.HealthcheckRequest) error { return checkNothing() }

func checkShutdownRequest(*vectrapb.ShutdownRequest) error { return checkNothing() }

func checkCreateIndexRequest(req *vectrapb.CreateIndexRequest) error {
	return checkIndexName(req.GetIndexName())
}

func checkUpsertItemRequest(req *vectrapb.UpsertItemRequest) error {
	switch {
	case req.GetIndexName() == "":
		return errIndexNameRequired()
	case req.GetId() == "":
		return invalid("id is required for upsert")
	}
	return nil
}

func checkGetItemRequest(req *vectrapb.GetItemRequest) error {
	return checkIndexAndID(req.GetIndexName(), req.GetId())
}

func checkDeleteItemRequest(req *vectrapb.DeleteItemRequest) error {
	return checkIndexAndID(req.GetIndexName(), req.GetId())
}

func checkIndexAndID(index, id string) error {
	switch {
	case index == "":
		return errIndexNameRequired()
	case id == "":
		return invalid("id is required")
	}
	return nil
}

func checkUpsertDocumentRequest(req *vectrapb.UpsertDocumentRequest) error {
	switch {
	case req.GetIndexName() == "":
		return errIndexNameRequired()
	case req.GetUri() == "":
		return invalid("uri is required")
	case req.GetText() == "":
		return invalid("text is required")
	}
	return nil
}

func checkDeleteDocumentRequest(req *vectrapb.DeleteDocumentRequest) error {
	switch {
	case req.GetIndexName() == "":
		return errIndexNameRequired()
	case req.GetUri() == "":
		return invalid("uri is required")
	}
	return nil
}
