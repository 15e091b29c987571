package grpcserver

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// logCall writes one debug line per call.
func (s *IndexServer) logCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	s.log.LogAttrs(ctx, slog.LevelDebug, "grpcserver: call",
		slog.String("method", info.FullMethod),
		slog.String("code", status.Code(err).String()),
		slog.Duration("duration", time.Since(start)))
	return resp, err
}

// authenticate checks the bearer token when one is configured; the health
// service is exempt.
func (s *IndexServer) authenticate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.cfg.AuthToken == "" || strings.HasPrefix(info.FullMethod, "/grpc.health.v1.Health/") {
		return handler(ctx, req)
	}
	if !s.authorized(ctx) {
		return nil, status.Error(codes.Unauthenticated, "a valid bearer token is required")
	}
	return handler(ctx, req)
}

func (s *IndexServer) authorized(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		// The scheme is case-insensitive (RFC 9110 §11.1): "bearer x" is
		// "Bearer x".
		scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok && strings.EqualFold(scheme, "Bearer") &&
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.AuthToken)) == 1 {
			return true
		}
	}
	return false
}
