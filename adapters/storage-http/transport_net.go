//go:build !js

package storagehttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
)

// netTransport sends requests with net/http.
type netTransport struct{ client *http.Client }

// newTransport returns net/http's transport, following redirects that
// allow accepts (at most 10).
func newTransport(allow func(*url.URL) error) transport {
	return netTransport{client: &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if err := allow(req.URL); err != nil {
			return err
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}}}
}

func (t netTransport) roundTrip(ctx context.Context, method string, u *url.URL, h header) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = http.Header(h)
	resp, err := t.client.Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // its URL may hold a query
		}
		return nil, err
	}
	return &response{StatusCode: resp.StatusCode, Header: header(resp.Header), Body: drainer{resp.Body}, ContentLength: resp.ContentLength, URL: resp.Request.URL}, nil
}

// drainer is a body that reads a little of what is left before it closes,
// so that the connection can be reused.
type drainer struct{ io.ReadCloser }

func (d drainer) Close() error {
	_, _ = io.CopyN(io.Discard, d.ReadCloser, 4<<10)
	return d.ReadCloser.Close()
}
