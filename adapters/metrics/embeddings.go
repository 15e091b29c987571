package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/foliovec/folio/core"
)

// Embeddings is the metrics of embeddings models, a prometheus.Collector:
// folio_embeddings_calls_total (by model and status: success, error,
// rate_limited, cancelled), folio_embeddings_inputs_total (by model) and
// folio_embeddings_call_seconds (a histogram, by model).
type Embeddings struct {
	calls   *prometheus.CounterVec
	inputs  *prometheus.CounterVec
	seconds *prometheus.HistogramVec
}

// NewEmbeddings returns embeddings metrics, none registered yet.
func NewEmbeddings() *Embeddings {
	return &Embeddings{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_embeddings_calls_total", Help: "Embeddings model calls, by model and status (success, error, rate_limited, cancelled).",
		}, []string{"model", "status"}),
		inputs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_embeddings_inputs_total", Help: "Texts sent to the embeddings model.",
		}, []string{"model"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "folio_embeddings_call_seconds", Help: "Time of an embeddings model call, in seconds.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"model"}),
	}
}

// Describe and Collect make Embeddings a prometheus.Collector.
func (e *Embeddings) Describe(ch chan<- *prometheus.Desc) {
	e.calls.Describe(ch)
	e.inputs.Describe(ch)
	e.seconds.Describe(ch)
}

func (e *Embeddings) Collect(ch chan<- prometheus.Metric) {
	e.calls.Collect(ch)
	e.inputs.Collect(ch)
	e.seconds.Collect(ch)
}

// Instrument returns model counted under name: the same answers, each
// call counted and timed.
func (e *Embeddings) Instrument(name string, model core.EmbeddingsModel) core.EmbeddingsModel {
	return &instrumented{model: model, name: name, e: e}
}

type instrumented struct {
	model core.EmbeddingsModel
	name  string
	e     *Embeddings
}

func (m *instrumented) MaxTokens() int { return m.model.MaxTokens() }

func (m *instrumented) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	start := time.Now()
	resp, err := m.model.CreateEmbeddings(ctx, inputs)
	m.e.seconds.WithLabelValues(m.name).Observe(time.Since(start).Seconds())
	m.e.inputs.WithLabelValues(m.name).Add(float64(len(inputs)))
	status := string(resp.Status)
	if status == "" {
		status = string(core.EmbeddingsSuccess)
		if err != nil {
			status = string(core.EmbeddingsFailed)
		}
	}
	m.e.calls.WithLabelValues(m.name, status).Inc()
	return resp, err
}
