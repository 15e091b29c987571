package grpcserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns their paths and a pool trusting the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "folio test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLSAndBearerToken(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	ts := startServer(t, func(c *grpcserver.Options) {
		c.TLSCertFile, c.TLSKeyFile, c.AuthToken = certFile, keyFile, "s3cret-token"
	})
	conn := dial(t, ts.port, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	client := vectrapb.NewVectraServiceClient(conn)
	withToken := func(token string) *vectrapb.HealthcheckResponse {
		t.Helper()
		ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
		resp, err := client.Healthcheck(ctx, &vectrapb.HealthcheckRequest{})
		if token == "s3cret-token" && err != nil {
			t.Fatalf("the right token: %v", err)
		}
		if token != "s3cret-token" && status.Code(err) != codes.Unauthenticated {
			t.Fatalf("token %q: %v, want Unauthenticated", token, err)
		}
		return resp
	}
	if withToken("s3cret-token").GetStatus() != "ok" {
		t.Fatal("no health status over TLS with the token")
	}
	withToken("wrong")
	withToken("")
	if _, err := client.ListIndexes(t.Context(), &vectrapb.ListIndexesRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token at all: %v, want Unauthenticated", err)
	}
	// The health service answers without a token, for load balancers.
	if h, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health over TLS without a token: %v, %v", h, err)
	}
	// A plaintext client cannot talk to the TLS server.
	plain := vectrapb.NewVectraServiceClient(dial(t, ts.port, grpc.WithTransportCredentials(insecure.NewCredentials())))
	if _, err := plain.Healthcheck(t.Context(), &vectrapb.HealthcheckRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext against TLS: %v, want Unavailable", err)
	}
}

// The bearer scheme is matched case-insensitively; the token is not.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	ts := startServer(t, func(c *grpcserver.Options) { c.AuthToken = "Tok3n" })
	client := vectrapb.NewVectraServiceClient(dial(t, ts.port, grpc.WithTransportCredentials(insecure.NewCredentials())))
	for _, tc := range []struct {
		header string
		want   codes.Code
	}{
		{"Bearer Tok3n", codes.OK},
		{"bearer Tok3n", codes.OK},
		{"BEARER Tok3n", codes.OK},
		{"bearer  Tok3n ", codes.OK},
		{"bearer tok3n", codes.Unauthenticated},
		{"Basic Tok3n", codes.Unauthenticated},
		{"Tok3n", codes.Unauthenticated},
		{"bearer", codes.Unauthenticated},
	} {
		ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", tc.header)
		_, err := client.ListIndexes(ctx, &vectrapb.ListIndexesRequest{})
		if got := status.Code(err); got != tc.want {
			t.Errorf("authorization %q: %v, want %v", tc.header, got, tc.want)
		}
	}
}

// A token that is all white space, or has white space around it, would be
// no token or one no client can send: the server refuses to start.
func TestBlankAuthTokenIsRefused(t *testing.T) {
	for _, token := range []string{" ", "\n", " tok", "tok\n"} {
		_, err := grpcserver.New(&grpcserver.Options{AuthToken: token, Config: manager.Config{IndexPath: t.TempDir()}})
		if !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("AuthToken %q: %v, want ErrInvalidArgument", token, err)
		}
	}
}
