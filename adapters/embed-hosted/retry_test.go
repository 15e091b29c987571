package embedhosted

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 5, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string // "" : header absent
		want   time.Duration
		wantOK bool
	}{
		{"absent", "", 0, false},
		{"delay-seconds", "7", 7 * time.Second, true},
		{"zero seconds", "0", 0, true},
		{"spaces around seconds", " 2 ", 2 * time.Second, true},
		{"an HTTP date in the future", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"an HTTP date in the past is no wait", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"a huge number saturates past the cap", "99999999999999999999", maxRetryAfter + time.Second, true},
		{"negative seconds are malformed", "-1", 0, false},
		{"fractional seconds are malformed", "1.5", 0, false},
		{"text is malformed", "soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.value != "" {
				h.Set("Retry-After", tt.value)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	now := time.Now()
	policy := []time.Duration{2 * time.Second, 5 * time.Second}
	withDeadline := func(d time.Duration) context.Context {
		ctx, cancel := context.WithDeadline(context.Background(), now.Add(d))
		t.Cleanup(cancel)
		return ctx
	}
	tests := []struct {
		name       string
		ctx        context.Context
		attempt    int
		retryAfter string
		want       time.Duration
		wantStop   string
	}{
		{"the first retry waits the first delay", context.Background(), 0, "", 2 * time.Second, ""},
		{"the second retry waits the second delay", context.Background(), 1, "", 5 * time.Second, ""},
		{"a spent policy stops", context.Background(), 2, "", 0, "gave up after 3 attempts"},
		{"a longer Retry-After wins", context.Background(), 0, "4", 4 * time.Second, ""},
		{"a shorter Retry-After loses", context.Background(), 1, "1", 5 * time.Second, ""},
		{"Retry-After of exactly one minute is waited for", context.Background(), 0, "60", time.Minute, ""},
		{"Retry-After over one minute stops", context.Background(), 0, "61", 0, "more than 1m0s"},
		{"a wait ending after the deadline stops", withDeadline(3 * time.Second), 1, "", 0, "would pass the context deadline"},
		{"a wait ending before the deadline goes on", withDeadline(3 * time.Second), 0, "", 2 * time.Second, ""},
		{"a Retry-After ending after the deadline stops", withDeadline(3 * time.Second), 0, "10", 0, "a retry in 10s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			got, stop := retryDelay(tt.ctx, policy, tt.attempt, h, now)
			if got != tt.want || (tt.wantStop == "") != (stop == "") || !strings.Contains(stop, tt.wantStop) {
				t.Errorf("retryDelay = %v, %q; want %v, %q", got, stop, tt.want, tt.wantStop)
			}
		})
	}
}

func TestSleepReturnsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if err := sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("sleep = %v, want nil", err)
	}
	if err := sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep(0) on a cancelled context = %v, want context.Canceled", err)
	}
}
