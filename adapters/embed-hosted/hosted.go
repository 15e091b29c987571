package embedhosted

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/foliovec/folio/core"
)

// HostedEmbeddings is a [core.EmbeddingsModel] served over HTTP by the
// hosted API, the cloud-hosted API or a compatible self-hosted server.
// Create it with [New]; it is safe for concurrent use.
type HostedEmbeddings struct {
	opts    Options // resolved: defaults filled, nothing shared with the caller
	variant Variant
	url     string      // the address every request posts to
	op      string      // "embedhosted: POST <url>", credentials redacted, for messages
	logURL  string      // the address as logged, credentials redacted
	header  http.Header // the header of every request, cloned per request
	model   string      // the body's "model", "" when not sent
	client  *http.Client
	redact  redactor

	// sleep waits between retries and now reads the clock; tests replace
	// them to observe the delays without waiting.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

var _ core.EmbeddingsModel = (*HostedEmbeddings)(nil)

// New returns a client for the variant whose fields are set in opts (see
// [Options]). Options of more than one variant, of none, or of a variant
// with a required field missing, a cloud endpoint that is not HTTPS, an
// endpoint that is not an absolute http(s) address, and negative numbers
// are errors wrapping [core.ErrInvalidArgument]; the message names the
// fields.
//
// Endpoints lose surrounding spaces and one trailing "/", so "http://h/"
// posts to http://h/v1/embeddings.
func New(opts *Options) (*HostedEmbeddings, error) {
	var given Options
	if opts != nil {
		given = *opts
	}
	o, v, err := given.resolve()
	if err != nil {
		return nil, fmt.Errorf("embedhosted: new: %w", err)
	}
	h := &HostedEmbeddings{
		opts:    o,
		variant: v,
		url:     requestURL(o, v),
		header:  requestHeader(o, v),
		model:   bodyModel(o, v),
		client:  o.HTTPClient,
		redact:  newRedactor(o),
		sleep:   sleep,
		now:     time.Now,
	}
	if err := checkClient(o); err != nil {
		return nil, fmt.Errorf("embedhosted: new: %w", err)
	}
	if h.client == nil {
		h.client = &http.Client{}
	}
	u, err := url.Parse(h.url)
	if err != nil {
		return nil, fmt.Errorf("embedhosted: new: request url: %v: %w", err, core.ErrInvalidArgument)
	}
	h.logURL = h.redact.redact(u.Redacted())
	h.op = "embedhosted: POST " + h.logURL
	return h, nil
}

// MaxTokens is Options.MaxTokens, DefaultMaxTokens when that was 0.
func (h *HostedEmbeddings) MaxTokens() int { return h.opts.MaxTokens }

// Variant reports which API the client talks to.
func (h *HostedEmbeddings) Variant() Variant { return h.variant }

// Options returns the resolved options: defaults filled in, endpoints
// trimmed. Its RetryPolicy and Headers are copies.
func (h *HostedEmbeddings) Options() Options {
	o := h.opts
	o.RetryPolicy = append([]time.Duration{}, o.RetryPolicy...)
	o.Headers = o.Headers.Clone()
	return o
}

// CreateEmbeddings posts inputs in one request and returns one vector per
// input, in input order, with the model and usage the server reported.
// Zero inputs return an empty success without a request. Inputs are sent
// as given, as a JSON array (invalid UTF-8 becomes U+FFFD, as JSON
// requires); the client never splits a request.
//
// A 429 answer is retried after each delay of the retry policy (longer when
// the server's Retry-After asks for it, see the package documentation). On
// failure the response carries the status and message of the returned
// *core.EmbeddingsError: rate_limited when 429 persists, cancelled when ctx
// ends (Err is ctx.Err()), error for anything else.
func (h *HostedEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	if err := ctx.Err(); err != nil {
		return h.cancelled(err)
	}
	if len(inputs) == 0 {
		return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{}}, nil
	}
	body, err := encodeBody(inputs, h.opts.Dimensions, h.model)
	if err != nil {
		return h.fail(core.EmbeddingsFailed, "encode request: "+err.Error(), err)
	}
	for attempt := 0; ; attempt++ {
		resp, err := h.send(ctx, body, attempt, len(inputs))
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return h.cancelled(ctxErr)
			}
			return h.fail(core.EmbeddingsFailed, transportMessage(err), err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			msg := h.readErrorMessage(resp)
			wait, stop := retryDelay(ctx, h.opts.RetryPolicy, attempt, resp.Header, h.now())
			if stop != "" {
				return h.fail(core.EmbeddingsRateLimited, joinMessage("rate limit error, "+statusText(resp.StatusCode), msg, stop), nil)
			}
			if err := h.sleep(ctx, wait); err != nil {
				return h.cancelled(err)
			}
			continue
		}
		return h.finish(ctx, resp, len(inputs))
	}
}

// send posts body once, logging the attempt when asked to.
func (h *HostedEmbeddings) send(ctx context.Context, body []byte, attempt, inputs int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h.header.Clone()
	start := time.Now()
	resp, err := h.do(req)
	if h.opts.LogRequests && h.opts.Logger != nil {
		attrs := []slog.Attr{
			slog.String("method", http.MethodPost),
			slog.String("url", h.logURL),
			slog.Int("attempt", attempt+1),
			slog.Int("inputs", inputs),
			slog.Duration("duration", time.Since(start)),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", h.redact.redact(transportMessage(err))))
		} else {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		h.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "embedhosted: request", attrs...)
	}
	return resp, err
}

// finish turns a final, non-429 response into the call's result.
func (h *HostedEmbeddings) finish(ctx context.Context, resp *http.Response, n int) (core.EmbeddingsResponse, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := h.readErrorMessage(resp)
		if err := ctx.Err(); err != nil {
			return h.cancelled(err)
		}
		return h.fail(core.EmbeddingsFailed, joinMessage(statusText(resp.StatusCode), msg), nil)
	}
	defer resp.Body.Close()
	limit := maxBody(n)
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return h.cancelled(ctxErr)
		}
		return h.fail(core.EmbeddingsFailed, "read response: "+err.Error(), err)
	}
	if int64(len(data)) > limit {
		return h.fail(core.EmbeddingsFailed, fmt.Sprintf("response body exceeds %d bytes", limit), nil)
	}
	d, err := decodeEmbeddings(data, n)
	if err != nil {
		return h.fail(core.EmbeddingsFailed, err.Error(), err)
	}
	return core.EmbeddingsResponse{
		Status: core.EmbeddingsSuccess,
		Output: d.output,
		Model:  d.model,
		Usage:  d.usage,
	}, nil
}

// readErrorMessage reads at most maxErrorBody bytes of an error response,
// closes it and returns the server's message, "" when there is none.
func (h *HostedEmbeddings) readErrorMessage(resp *http.Response) string {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return serverMessage(resp.Header.Get("Content-Type"), data)
}

// fail builds a failed result: the response and the *core.EmbeddingsError
// carry the same status and message, with every credential redacted.
func (h *HostedEmbeddings) fail(status core.EmbeddingsStatus, msg string, cause error) (core.EmbeddingsResponse, error) {
	msg = h.redact.redact(h.op + ": " + msg)
	return core.EmbeddingsResponse{Status: status, Message: msg},
		&core.EmbeddingsError{Status: status, Message: msg, Err: cause}
}

// cancelled is fail for a context that ended; errors.Is finds ctxErr.
func (h *HostedEmbeddings) cancelled(ctxErr error) (core.EmbeddingsResponse, error) {
	return h.fail(core.EmbeddingsCancelled, ctxErr.Error(), ctxErr)
}

// statusText is "http 500 Internal Server Error", from the code alone: the
// reason phrase a server sends is not trusted into messages.
func statusText(code int) string {
	if text := http.StatusText(code); text != "" {
		return fmt.Sprintf("http %d %s", code, text)
	}
	return fmt.Sprintf("http %d", code)
}

// transportMessage is a transport error without the method and address
// that *url.Error repeats (the message already names them).
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// joinMessage joins the non-empty parts with ": ".
func joinMessage(parts ...string) string {
	msg := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if msg != "" {
			msg += ": "
		}
		msg += p
	}
	return msg
}
