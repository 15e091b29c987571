package metrics

import (
	"net/http"
	"net/http/pprof"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
)

// Server is the metrics of a Folio gRPC server, a prometheus.Collector:
//
//   - folio_grpc_server_started_total, folio_grpc_server_handled_total
//     (by grpc_code) and folio_grpc_server_handling_seconds (a histogram),
//     by grpc_service and grpc_method, from go-grpc-middleware's
//     interceptors (UnaryInterceptor);
//   - folio_server_batch_calls (a histogram, by index): the QueryDocuments
//     calls of each batch the server answers together, and
//     folio_server_batch_waiting_calls (a gauge, by index): the calls
//     waiting behind the last batch (ObserveBatch);
//   - folio_server_refused_calls_total (by method and reason): calls the
//     server's caps refused before any work (ObserveRefused).
type Server struct {
	grpc    *grpcprom.ServerMetrics
	batch   *prometheus.HistogramVec
	waiting *prometheus.GaugeVec
	refused *prometheus.CounterVec
}

// NewServer returns a server's metrics, none registered yet.
func NewServer() *Server {
	return &Server{
		grpc: grpcprom.NewServerMetrics(
			grpcprom.WithServerCounterOptions(grpcprom.WithNamespace("folio")),
			grpcprom.WithServerHandlingTimeHistogram(
				grpcprom.WithHistogramNamespace("folio"),
				grpcprom.WithHistogramBuckets([]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}),
			),
		),
		batch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "folio_server_batch_calls", Help: "QueryDocuments calls in each batch the server answered together.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}, []string{"index"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "folio_server_batch_waiting_calls", Help: "QueryDocuments calls waiting behind the batch that started last.",
		}, []string{"index"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_server_refused_calls_total", Help: "Calls refused by the server's caps before any work, by method and reason.",
		}, []string{"method", "reason"}),
	}
}

// Describe and Collect make Server a prometheus.Collector.
func (s *Server) Describe(ch chan<- *prometheus.Desc) {
	s.grpc.Describe(ch)
	s.batch.Describe(ch)
	s.waiting.Describe(ch)
	s.refused.Describe(ch)
}

func (s *Server) Collect(ch chan<- prometheus.Metric) {
	s.grpc.Collect(ch)
	s.batch.Collect(ch)
	s.waiting.Collect(ch)
	s.refused.Collect(ch)
}

// UnaryInterceptor counts and times every unary call.
func (s *Server) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return s.grpc.UnaryServerInterceptor()
}

// StreamInterceptor counts and times every streaming call.
func (s *Server) StreamInterceptor() grpc.StreamServerInterceptor {
	return s.grpc.StreamServerInterceptor()
}

// Register is for the gRPC server's Register hook: it sets every method's
// counts to zero, so that rates start from the first scrape.
func (s *Server) Register(g *grpc.Server) { s.grpc.InitializeMetrics(g) }

// ObserveBatch is the gRPC server's Observer.Batch.
func (s *Server) ObserveBatch(index string, calls, waiting int) {
	s.batch.WithLabelValues(index).Observe(float64(calls))
	s.waiting.WithLabelValues(index).Set(float64(waiting))
}

// ObserveRefused is the gRPC server's Observer.Refused.
func (s *Server) ObserveRefused(method, reason string) {
	s.refused.WithLabelValues(method, reason).Inc()
}

// Handler serves g's metrics at /metrics in Prometheus's formats, and,
// with withPprof, the runtime's profiles at /debug/pprof/.
func Handler(g prometheus.Gatherer, withPprof bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}
