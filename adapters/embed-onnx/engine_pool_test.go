package embedonnx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPoolingConfig(t *testing.T) {
	for config, want := range map[string]Pooling{
		`{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}`: PoolingCLS,
		`{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}`: PoolingMean,
		`{"pooling_mode_max_tokens": true}`:                                   "",
		`not json`:                                                            "",
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := poolingConfig(dir); got != want {
			t.Errorf("%s: %q, want %q", config, got, want)
		}
	}
	if got := poolingConfig(t.TempDir()); got != "" {
		t.Errorf("no config: %q", got)
	}
}
