package tokenizertiktoken

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

// The embedded ranks are OpenAI's o200k_base.tiktoken, byte for byte.
func TestEmbeddedRanksAreOpenAIs(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(o200kRanksGz))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, zr); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != o200kSHA256 {
		t.Errorf("sha256 of the embedded %s = %s, want %s", o200kRanksFile, got, o200kSHA256)
	}
	ranks, err := parseRanks(o200kRanksGz, true)
	if err != nil || len(ranks) != 199998 {
		t.Errorf("parseRanks(embedded) = %d ranks, %v; want 199998", len(ranks), err)
	}
}

// A rank file is read gzipped or not, and anything but o200k_base's is
// ErrRankFile.
func TestParseRanksChecksTheFile(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(o200kRanksGz))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if ranks, err := parseRanks(plain, true); err != nil || len(ranks) != 199998 {
		t.Errorf("parseRanks(plain) = %d ranks, %v; want 199998", len(ranks), err)
	}
	for name, raw := range map[string][]byte{
		"empty":      nil,
		"truncated":  plain[:len(plain)/2],
		"one byte":   append(bytes.Clone(plain[:len(plain)-2]), 'x', '\n'),
		"bad gzip":   o200kRanksGz[:100],
		"other text": []byte("aGVsbG8= 0\n"),
	} {
		if _, err := parseRanks(raw, true); !errors.Is(err, ErrRankFile) {
			t.Errorf("%s: parseRanks = %v, want ErrRankFile", name, err)
		}
	}
}

func FuzzParseRanks(f *testing.F) {
	f.Add([]byte("aGVsbG8= 0\nIQ== 1\n"))
	f.Add([]byte("x"))
	f.Add(o200kRanksGz[:64])
	f.Fuzz(func(t *testing.T, raw []byte) {
		ranks, err := parseRanks(raw, false)
		if err == nil && ranks == nil {
			t.Fatal("no ranks and no error")
		}
	})
}
