"""Drives a Folio IndexServer with the Python client Vectra 0.15 generates
(`vectra generate --language python`), unchanged: create, insert, query,
documents, stats, errors, delete. Usage: vectra_client_check.py PORT.
Exits non-zero with a message on the first thing that is not as expected."""

import sys

import grpc
from vectra_client import VectraClient


def expect(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def main():
    port = int(sys.argv[1])
    with VectraClient("127.0.0.1", port) as c:
        expect(c.healthcheck()["status"] == "ok", "healthcheck")
        for fmt in ("json", "protobuf"):
            name = "items-" + fmt
            c.create_index(name, format=fmt)
            a = c.insert_item(name, vector=[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], metadata={"kind": "a", "n": 1, "ok": True})
            expect(len(a) == 36, "generated id " + a)
            c.insert_item(name, id="b", text="hello from python", metadata={"kind": "b", "n": 2})
            c.upsert_item(name, "b", text="hello again from python", metadata={"kind": "b", "n": 3})
            hits = c.query_items(name, vector=[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], top_k=1)
            expect(len(hits) == 1 and hits[0]["id"] == a and hits[0]["score"] > 0.99, "query_items %r" % hits)
            expect(hits[0]["metadata"] == {"kind": "a", "n": 1.0, "ok": True}, "metadata %r" % hits[0]["metadata"])
            item = c.get_item(name, "b")
            expect(item["metadata"]["n"] == 3.0, "get_item %r" % item)
            expect(len(c.list_items(name, filter={"kind": "b"})) == 1, "list_items with a filter")
            stats = c.get_index_stats(name)
            expect(stats["item_count"] == 2 and stats["format"] == fmt, "get_index_stats %r" % stats)
            c.delete_item(name, "b")
            expect(len(c.list_items(name)) == 1, "delete_item")
            try:
                c.create_index(name, format=fmt)
                sys.exit("FAIL: a duplicate create_index succeeded")
            except grpc.RpcError as e:
                expect(e.code() == grpc.StatusCode.ALREADY_EXISTS, "duplicate code %s" % e.code())
        c.create_index("docs", is_document_index=True, chunk_size=64)
        doc_id = c.upsert_document("docs", "doc://py", "Folio answers Vectra's clients. " * 20, metadata={"lang": "en"})
        expect(len(doc_id) == 36, "document id " + doc_id)
        for bm25 in (False, True):
            docs = c.query_documents("docs", "Vectra clients", use_bm25=bm25)
            expect(len(docs) == 1 and docs[0]["uri"] == "doc://py", "query_documents %r" % docs)
            chunk = docs[0]["chunks"][0]
            expect(chunk["text"] != "" and chunk["token_count"] > 0, "chunk %r" % chunk)
        expect(c.list_documents("docs") == [{"uri": "doc://py", "document_id": doc_id}], "list_documents")
        cat = c.get_catalog_stats("docs")
        expect(cat["document_count"] == 1 and cat["chunk_count"] > 0, "get_catalog_stats %r" % cat)
        c.delete_document("docs", "doc://py")
        expect(c.list_documents("docs") == [], "delete_document")
        try:
            c.get_item("nowhere", "x")
            sys.exit("FAIL: get_item on a missing index succeeded")
        except grpc.RpcError as e:
            expect(e.code() == grpc.StatusCode.NOT_FOUND, "missing index code %s" % e.code())
        names = sorted(i["name"] for i in c.list_indexes())
        expect(names == ["docs", "items-json", "items-protobuf"], "list_indexes %r" % names)
        for n in names:
            c.delete_index(n)
        expect(c.list_indexes() == [], "delete_index")
        c.shutdown()
    print("vectra python client: ok")


main()
