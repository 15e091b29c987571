package tokenizertiktoken

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
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
	const want = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("sha256 of the embedded %s = %s, want %s", o200kRanksFile, got, want)
	}
	ranks, err := loadRanks()
	if err != nil || len(ranks) != 199998 {
		t.Errorf("loadRanks() = %d ranks, %v; want 199998", len(ranks), err)
	}
}
