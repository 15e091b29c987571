"""A small Folio (or Vectra) gRPC client: lists the server's indexes and,
given an index and a query, prints the best documents.

    python3 -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. vectra_service.proto
    python3 client.py [--addr 127.0.0.1:50051] [index query]

The address defaults to $FOLIO_ADDR, else 127.0.0.1:50051; a bearer token
is read from $FOLIO_TOKEN.
"""
import argparse
import os

import grpc

import vectra_service_pb2 as pb
import vectra_service_pb2_grpc as rpc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", default=os.environ.get("FOLIO_ADDR") or "127.0.0.1:50051",
                        help="server address (default $FOLIO_ADDR or 127.0.0.1:50051)")
    parser.add_argument("index", nargs="?")
    parser.add_argument("query", nargs="?")
    args = parser.parse_args()
    metadata = []
    if os.environ.get("FOLIO_TOKEN"):
        metadata.append(("authorization", "Bearer " + os.environ["FOLIO_TOKEN"]))
    with grpc.insecure_channel(args.addr) as channel:
        client = rpc.VectraServiceStub(channel)
        for ix in client.ListIndexes(pb.ListIndexesRequest(), metadata=metadata, timeout=30).indexes:
            print("index %s (%s, document index: %s)" % (ix.name, ix.format, ix.is_document_index))
        if args.index and args.query:
            res = client.QueryDocuments(
                pb.QueryDocumentsRequest(index_name=args.index, query=args.query, max_documents=3),
                metadata=metadata, timeout=30)
            for d in res.results:
                print("%.4f %s (%d chunks)" % (d.score, d.uri, len(d.chunks)))


if __name__ == "__main__":
    main()
