// Package embedhosted is an embeddings model served over HTTP: the hosted
// embeddings API, its cloud-hosted form, or a compatible self-hosted server
// (Vectra's OpenAIEmbeddings). It uses the
// standard library's net/http only, and builds for js/wasm and wasip1/wasm;
// in js/wasm it sends its requests with the page's fetch directly, leaving
// Go's HTTP client out of the page.
//
// [New] picks the variant from the [Options] that are set:
//
//	hosted        APIKey, Model, optional Organization and Endpoint
//	              POST <Endpoint>/v1/embeddings, "Authorization: Bearer <APIKey>",
//	              "OpenAI-Organization: <Organization>" when set
//	cloud-hosted  CloudAPIKey, CloudEndpoint (https only), CloudDeployment, optional CloudAPIVersion
//	              POST <CloudEndpoint>/openai/deployments/<CloudDeployment>/embeddings?api-version=<CloudAPIVersion>,
//	              "api-key: <CloudAPIKey>"
//	self-hosted   OSSModel, OSSEndpoint
//	              POST <OSSEndpoint>/v1/embeddings, no credential
//
// The body is {"input": [...], "dimensions": D, "model": M}: dimensions
// only when Options.Dimensions is set, model for the hosted and self-hosted
// variants. A success response's "data" items are returned in "index"
// order as float32 vectors, with the response's "model" and "usage".
// [OptionsFromKeysJSON] reads the keys files of Vectra's command-line tool.
//
// Differences from Vectra 0.15: endpoints of every variant lose one
// trailing "/" (Vectra trims only the cloud-hosted one and posts to
// "//v1/embeddings" otherwise); zero inputs return an empty success without
// a request; Retry-After is honoured; error bodies need not be JSON; a
// response with the wrong number of vectors is an error.
//
// # Retries
//
// Only HTTP 429 is retried, once per delay of Options.RetryPolicy (default
// 2 s, then 5 s). Before retry i the client waits RetryPolicy[i], or the
// server's Retry-After (seconds or an HTTP date) when that is longer. The
// call ends at once with status rate_limited, without waiting, when the
// policy is spent, when Retry-After asks for more than one minute, or when
// the wait would end after the context's deadline: a retry that cannot
// happen in time is not waited for. A context cancelled during a wait ends
// the call at once with status cancelled.
//
// # Concurrency
//
// A [HostedEmbeddings] is immutable after [New] and safe for concurrent
// use; concurrent calls send concurrent requests through the one
// http.Client. New copies Options' slices and headers, so the caller may
// change them afterwards.
//
// # Errors
//
// [New] and [OptionsFromKeysJSON] return errors wrapping
// core.ErrInvalidArgument, naming the fields at fault. CreateEmbeddings
// returns a *core.EmbeddingsError on failure, and a response with the same
// Status and Message:
//
//   - rate_limited: still HTTP 429 after the retries (errors.Is
//     core.ErrRateLimited);
//   - cancelled: the context ended before or during the call, including a
//     retry wait; Err is ctx.Err(), so errors.Is(err, context.Canceled) and
//     errors.Is(err, context.DeadlineExceeded) work (errors.Is
//     core.ErrEmbeddingsCancelled);
//   - error: any other status (the message carries the code and the
//     server's message, read from a JSON, HTML or text body), a transport
//     error (Err), a body that is not a valid embeddings response or holds
//     the wrong number of vectors, or a body larger than its limit (1 MiB
//     plus 512 KiB per input) (errors.Is core.ErrEmbeddingsFailed).
//
// Messages begin with "embedhosted: POST <url>". No message and no log
// record ever holds APIKey, CloudAPIKey or a credential from
// Options.Headers: they are redacted even from text the server echoes.
//
// With LogRequests and a Logger, each HTTP attempt logs one Info record
// "embedhosted: request" with method, url, attempt, inputs, duration and
// status (or error). Without a Logger nothing is logged.
package embedhosted
