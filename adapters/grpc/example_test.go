package grpcserver_test

import (
	"context"
	"fmt"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// Serve the indexes below a root folder and talk to the server with the
// generated Go client. A real server passes storagefs.New(nil), codecjson and
// codecpb, tiktoken and an embeddings model.
func ExampleNew() {
	ctx := context.Background()
	srv, err := grpcserver.New(&grpcserver.Options{
		Port: 0,
		Config: manager.Config{
			// a free port; grpcserver.DefaultPort is Vectra's 50051
			RootDir:      "indexes",
			Formats:      map[string]core.IndexCodec{manager.FormatJSON: reference.Codec{}},
			IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()},
		},
	})
	if err != nil {
		panic(err)
	}
	port, err := srv.Start(ctx)
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown(ctx)

	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := vectrapb.NewVectraServiceClient(conn)
	if _, err := client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "notes"}); err != nil {
		panic(err)
	}
	if _, err := client.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "notes", Id: "a", Vector: []float32{1, 0}}); err != nil {
		panic(err)
	}
	res, err := client.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "notes", Vector: []float32{1, 0}, TopK: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.GetResults()[0].GetId(), res.GetResults()[0].GetScore())
	// Output: a 1
}
