package grpcserver_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

// Every RPC checks its request before it looks the index up, in Vectra's
// order and words: sent over the wire with the fields below (the index
// named, when it is, one that does not exist), each answers
// INVALID_ARGUMENT with Vectra's message, never NOT_FOUND. An RPC the
// service gains without a case here fails the test.
func TestEveryRPCChecksItsRequestFirst(t *testing.T) {
	ts := startServer(t, nil)
	cases := map[string][]struct {
		fields map[string]string
		want   string // "" for a call Vectra does not check
	}{
		"CreateIndex":      {{nil, "index_name is required"}},
		"DeleteIndex":      {{nil, "index_name is required"}},
		"ListIndexes":      {{nil, ""}},
		"InsertItem":       {{nil, "index_name is required"}},
		"UpsertItem":       {{nil, "index_name is required"}, {map[string]string{"index_name": "nope"}, "id is required for upsert"}},
		"BatchInsertItems": {{nil, "index_name is required"}},
		"GetItem":          {{map[string]string{"id": "a"}, "index_name is required"}, {map[string]string{"index_name": "nope"}, "id is required"}},
		"DeleteItem":       {{map[string]string{"id": "a"}, "index_name is required"}, {map[string]string{"index_name": "nope"}, "id is required"}},
		"ListItems":        {{nil, "index_name is required"}},
		"QueryItems":       {{nil, "index_name is required"}},
		"QueryDocuments":   {{map[string]string{"query": "q"}, "index_name is required"}},
		"UpsertDocument": {
			{map[string]string{"uri": "u", "text": "t"}, "index_name is required"},
			{map[string]string{"index_name": "nope", "text": "t"}, "uri is required"},
			{map[string]string{"index_name": "nope", "uri": "u"}, "text is required"},
		},
		"DeleteDocument":  {{map[string]string{"uri": "u"}, "index_name is required"}, {map[string]string{"index_name": "nope"}, "uri is required"}},
		"ListDocuments":   {{nil, "index_name is required"}},
		"GetIndexStats":   {{nil, "index_name is required"}},
		"GetCatalogStats": {{nil, "index_name is required"}},
		"Healthcheck":     {{nil, ""}},
		"Shutdown":        nil, // not sent: it would end the server
	}
	service := vectrapb.File_vectra_service_proto.Services().ByName("VectraService")
	methods := service.Methods()
	if methods.Len() != len(cases) {
		t.Errorf("the service has %d RPCs, the test %d cases", methods.Len(), len(cases))
	}
	for i := range methods.Len() {
		m := methods.Get(i)
		name := string(m.Name())
		tcs, ok := cases[name]
		if !ok {
			t.Errorf("%s: no case: say what it checks before its index lookup", name)
			continue
		}
		for _, tc := range tcs {
			req := dynamicpb.NewMessage(m.Input())
			for field, value := range tc.fields {
				fd := m.Input().Fields().ByName(protoreflect.Name(field))
				if fd == nil {
					t.Fatalf("%s has no field %s", name, field)
				}
				req.Set(fd, protoreflect.ValueOfString(value))
			}
			resp := dynamicpb.NewMessage(m.Output())
			err := ts.conn.Invoke(t.Context(), "/"+string(service.FullName())+"/"+name, req, resp)
			st := status.Convert(err)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s %v: %v, want an answer", name, tc.fields, err)
			case tc.want != "" && (st.Code() != codes.InvalidArgument || st.Message() != tc.want):
				t.Errorf("%s %v: %v %q, want InvalidArgument %q", name, tc.fields, st.Code(), st.Message(), tc.want)
			}
		}
	}
}
