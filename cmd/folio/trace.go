//go:build !noserver

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/core"
)

// tracing is serve's OpenTelemetry tracing: spans for every RPC (otelgrpc,
// with the caller's W3C trace context), for each phase of a query
// (Observer.Phase), for each embeddings call and for a hosted model's HTTP
// requests (otelhttp).
type tracing struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// tracesWanted reports whether the standard OpenTelemetry variables name a
// trace exporter: OTEL_TRACES_EXPORTER (other than none), or an OTLP
// endpoint. Tracing is off otherwise.
func tracesWanted() bool {
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" {
		return e != "none"
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// exporterFromEnv makes the exporter the variables name:
// OTEL_TRACES_EXPORTER otlp (the default; OTEL_EXPORTER_OTLP_PROTOCOL
// http/protobuf, the default, or grpc, and the exporters' own variables
// for the endpoint, headers and TLS) or console (stdout of the server,
// its log with --daemon).
func exporterFromEnv(ctx context.Context, stdout io.Writer) (sdktrace.SpanExporter, error) {
	switch e := os.Getenv("OTEL_TRACES_EXPORTER"); e {
	case "", "otlp":
		proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
		if proto == "" {
			proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		switch proto {
		case "", "http/protobuf":
			return otlptracehttp.New(ctx)
		case "grpc":
			return otlptracegrpc.New(ctx)
		}
		return nil, usagef("OTEL_EXPORTER_OTLP_PROTOCOL %q: want http/protobuf or grpc", proto)
	case "console":
		return stdouttrace.New(stdouttrace.WithWriter(stdout))
	default:
		return nil, usagef("OTEL_TRACES_EXPORTER %q: want otlp, console or none", e)
	}
}

// newTracing sends spans to exp, as the service OTEL_SERVICE_NAME names
// (folio by default).
func newTracing(exp sdktrace.SpanExporter) (*tracing, error) {
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", serviceName())))
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &tracing{
		tp: tp, tracer: tp.Tracer("github.com/foliovec/folio/cmd/folio"),
		prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}, nil
}

func serviceName() string {
	if n := os.Getenv("OTEL_SERVICE_NAME"); n != "" {
		return n
	}
	return "folio"
}

// configure gives the server its RPC spans and phase spans.
func (tr *tracing) configure(cfg *grpcserver.Options) {
	cfg.ServerOptions = append(cfg.ServerOptions, grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(tr.tp), otelgrpc.WithPropagators(tr.prop))))
	phase := cfg.Observer.Phase
	cfg.Observer.Phase = func(ctx context.Context, name string) (context.Context, func(error)) {
		ctx, span := tr.tracer.Start(ctx, name)
		endOuter := func(error) {}
		if phase != nil {
			ctx, endOuter = phase(ctx, name)
		}
		return ctx, func(err error) {
			endOuter(err)
			end(span, err)
		}
	}
}

func end(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// transport is an HTTP transport whose requests carry spans and the trace
// context, for a hosted model's client.
func (tr *tracing) transport(base http.RoundTripper) http.RoundTripper {
	return otelhttp.NewTransport(base, otelhttp.WithTracerProvider(tr.tp), otelhttp.WithPropagators(tr.prop))
}

// instrument gives each call of model a span named folio.embeddings.
func (tr *tracing) instrument(name string, model core.EmbeddingsModel) core.EmbeddingsModel {
	return &tracedModel{model: model, name: name, tracer: tr.tracer}
}

type tracedModel struct {
	model  core.EmbeddingsModel
	name   string
	tracer trace.Tracer
}

func (m *tracedModel) MaxTokens() int { return m.model.MaxTokens() }

func (m *tracedModel) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	ctx, span := m.tracer.Start(ctx, "folio.embeddings", trace.WithAttributes(
		attribute.String("folio.model", m.name), attribute.Int("folio.inputs", len(inputs))))
	resp, err := m.model.CreateEmbeddings(ctx, inputs)
	span.SetAttributes(attribute.String("folio.status", string(resp.Status)))
	end(span, err)
	return resp, err
}

// shutdown flushes the spans still buffered.
func (tr *tracing) shutdown(ctx context.Context) error {
	if err := tr.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("traces: %w", err)
	}
	return nil
}

// chain composes two model decorators, inner first.
func chain(inner, outer func(string, core.EmbeddingsModel) core.EmbeddingsModel) func(string, core.EmbeddingsModel) core.EmbeddingsModel {
	switch {
	case inner == nil:
		return outer
	case outer == nil:
		return inner
	}
	return func(name string, m core.EmbeddingsModel) core.EmbeddingsModel { return outer(name, inner(name, m)) }
}
