// Package metrics exposes Folio to Prometheus, through
// github.com/prometheus/client_golang: the engine's own numbers per index
// (core.LocalIndex.Metrics and GetIndexStats), a gRPC server's calls (the
// grpc ecosystem's standard interceptors, go-grpc-middleware's Prometheus
// provider), the server's coalesced batches and refused calls, and an
// embeddings model's calls. `folio serve --metrics-addr` wires it all;
// a program that embeds the library registers the collectors it wants.
//
// Every metric's name starts with folio_, carries its unit and, for
// counters, _total, as Prometheus's naming rules ask; each index's are
// labelled index="<name>". The full list is in the package's
// documentation of each constructor and in the server guide.
//
// Everything here is safe for concurrent use. Collecting reads each
// index's atomic counters and its last loaded state; it takes no lock a
// query or a commit waits on.
package metrics
