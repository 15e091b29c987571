#!/usr/bin/env python3
"""FAISS's IVF index beside Folio's partitioned search (clusterbench's faiss
phase): the same vectors and held-out queries, one query at a time, then
batches of 64, with recall@k against the same exact answers.

The vectors and queries are raw little-endian float32 files written by
clusterbench; the exact answers its JSON list of ids ("c<row>") a query.
Cosine similarity is the inner product of vectors scaled to length 1, as
Folio scores them.
"""
import argparse
import json
import os
import time

import faiss
import numpy as np


def resident_mb():
    """The process's resident memory now, in MB (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--d", type=int, required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--nlist", type=int, default=1024)
    ap.add_argument("--nprobe", default="8,16,32,64")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--cache", help="the trained index's file: read when present, else written after the build")
    args = ap.parse_args()

    queries = np.fromfile(args.queries, dtype="<f4").reshape(-1, args.d)
    faiss.normalize_L2(queries)
    with open(args.truth) as f:
        truth = [{int(x[1:]) for x in row} for row in json.load(f)]

    start = time.perf_counter()
    if args.cache and os.path.exists(args.cache):
        index = faiss.read_index(args.cache)
        n = index.ntotal
        built = f"read from {args.cache} in {time.perf_counter() - start:.1f} s"
    else:
        base = np.fromfile(args.base, dtype="<f4").reshape(-1, args.d)
        faiss.normalize_L2(base)
        n = len(base)
        built = f"read in {time.perf_counter() - start:.1f} s, "
        start = time.perf_counter()
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(args.d), args.d, args.nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(1)
        sample = np.sort(rng.choice(n, size=min(n, 64 * args.nlist), replace=False))
        index.train(base[sample])
        index.add(base)
        built += f"trained and added in {time.perf_counter() - start:.1f} s"
        del base  # the index holds its own copy
        if args.cache:
            faiss.write_index(index, args.cache + ".tmp")
            os.replace(args.cache + ".tmp", args.cache)
    print(f"faiss     IVF{args.nlist},Flat over {n} rows: {built} "
          f"(FAISS {faiss.__version__}, {faiss.omp_get_max_threads()} threads); resident {resident_mb()} MB", flush=True)

    nq = len(truth)
    for nprobe in [int(p) for p in args.nprobe.split(",")]:
        index.nprobe = nprobe
        lat, hits = [], 0
        for j in range(nq):
            t = time.perf_counter()
            _, ids = index.search(queries[j:j + 1], args.k)
            lat.append(time.perf_counter() - t)
            hits += len(truth[j] & set(ids[0].tolist()))
        lat.sort()
        passes = []
        for lo in range(0, nq - args.batch + 1, args.batch):
            t = time.perf_counter()
            index.search(queries[lo:lo + args.batch], args.k)
            passes.append(time.perf_counter() - t)
        passes.sort()
        batch = passes[len(passes) // 2] * 1e3 if passes else 0.0
        print(f"faiss     nprobe {nprobe}: single query p50 {lat[nq // 2] * 1e3:.2f} ms, p99 {lat[nq * 99 // 100] * 1e3:.2f} ms; "
              f"recall@{args.k} {hits / sum(len(t) for t in truth):.4f}; batch of {args.batch} {batch:.1f} ms "
              f"({batch / args.batch:.2f} ms a query); resident {resident_mb()} MB", flush=True)


if __name__ == "__main__":
    main()
