package embedhosted

import "strings"

// minSecretLen is the shortest secret the redactor replaces: shorter
// strings are too likely to occur in ordinary text for replacing them to
// help, and no real key is that short.
const minSecretLen = 6

// redactor removes the credentials of one client from text that reaches an
// error message or a log record: a server may echo the key it was sent.
type redactor struct {
	secrets []string
}

// newRedactor collects the keys of o and the credentials a caller put in
// o.Headers (the token of an Authorization header, an api-key header).
func newRedactor(o Options) redactor {
	var r redactor
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= minSecretLen {
			r.secrets = append(r.secrets, s)
		}
	}
	add(o.APIKey)
	add(o.CloudAPIKey)
	for _, name := range []string{"Authorization", "Proxy-Authorization", "Api-Key", "X-Api-Key"} {
		for _, v := range o.Headers.Values(name) {
			add(v)
			if _, token, ok := strings.Cut(v, " "); ok {
				add(token)
			}
		}
	}
	return r
}

// redact replaces every secret in s with "[redacted]".
func (r redactor) redact(s string) string {
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}
