// Package bearer reads the bearer token folio serve requires and folio's
// load generator sends: from a file, else from $FOLIO_TOKEN, never from the
// command line, where other users of the machine could read it.
//
// # Errors
//
// A token file, or a set $FOLIO_TOKEN, that yields an empty token is an
// error: serving without authentication must be asked for by giving
// neither, never by an empty file.
package bearer

import (
	"fmt"
	"os"
	"strings"
)

// Env is the environment variable the token is read from when no file is
// named.
const Env = "FOLIO_TOKEN"

// Read returns the token in file, else in $FOLIO_TOKEN, surrounding white
// space trimmed; "" when neither is given.
func Read(file string) (string, error) {
	if file == "" {
		v, set := os.LookupEnv(Env)
		if !set {
			return "", nil
		}
		if t := strings.TrimSpace(v); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("$%s is set but empty: unset it to serve without a token, or give the token", Env)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return "", fmt.Errorf("token file %s is empty: it must hold the bearer token", file)
	}
	return t, nil
}
