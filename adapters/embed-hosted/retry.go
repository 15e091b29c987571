package embedhosted

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter is the longest Retry-After the client waits for. A server
// asking for longer ends the call with rate_limited at once.
const maxRetryAfter = time.Minute

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). ok is false when the header is absent or malformed; a
// date in the past is a zero delay.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	secs, err := strconv.ParseUint(v, 10, 64)
	switch {
	case err == nil && secs <= uint64(maxRetryAfter/time.Second):
		return time.Duration(secs) * time.Second, true
	case err == nil || errors.Is(err, strconv.ErrRange):
		// Longer than the client waits for: saturate rather than overflow.
		return maxRetryAfter + time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// retryDelay decides the wait before retry number attempt (0-based) after a
// 429: the policy's delay, or the server's Retry-After when that is longer.
// A non-empty stop says why the call ends with rate_limited instead: the
// policy is spent, the server asks for more than maxRetryAfter, or the wait
// would end after the context's deadline.
func retryDelay(ctx context.Context, policy []time.Duration, attempt int, h http.Header, now time.Time) (wait time.Duration, stop string) {
	if attempt >= len(policy) {
		return 0, fmt.Sprintf("gave up after %d attempts", attempt+1)
	}
	wait = policy[attempt]
	if ra, ok := retryAfter(h, now); ok {
		if ra > maxRetryAfter {
			return 0, fmt.Sprintf("server asks to retry after more than %v", maxRetryAfter)
		}
		wait = max(wait, ra)
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		return 0, fmt.Sprintf("a retry in %v would pass the context deadline", wait)
	}
	return wait, ""
}

// sleep waits for d or until ctx is done, whichever comes first, and
// returns ctx.Err() in the second case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
