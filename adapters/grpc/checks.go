package grpcserver

import "github.com/foliovec/folio/adapters/grpc/vectrapb"

// The checks a request passes before its index is looked up, one function
// a call that has any, in Vectra's order and with Vectra's messages (the
// other calls start with the lookup, which answers "index_name is
// required" for a request without a name).

func checkCreateIndexRequest(req *vectrapb.CreateIndexRequest) error {
	if req.GetIndexName() == "" {
		return errIndexNameRequired()
	}
	return nil
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
