package embedhosted

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDecodeEmbeddings(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		n       int
		want    [][]float32
		wantErr string
	}{
		{"items are returned in index order",
			`{"data":[{"index":2,"embedding":[3]},{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}]}`, 3,
			[][]float32{{1}, {2}, {3}}, ""},
		{"items without an index keep array order",
			`{"data":[{"embedding":[1,1]},{"embedding":[2,2]}]}`, 2,
			[][]float32{{1, 1}, {2, 2}}, ""},
		{"numbers are rounded to float32",
			`{"data":[{"index":0,"embedding":[0.1,-2.5e-3,1e-50]}]}`, 1,
			[][]float32{{0.1, -2.5e-3, 0}}, ""},
		{"unknown fields are ignored",
			`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1]}],"extra":{"a":[1]}}`, 1,
			[][]float32{{1}}, ""},
		{"fewer embeddings than inputs is an error", `{"data":[{"index":0,"embedding":[1]}]}`, 2, nil,
			"response holds 1 embeddings for 2 inputs"},
		{"more embeddings than inputs is an error", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1]}]}`, 1, nil,
			"response holds 2 embeddings for 1 inputs"},
		{"an index out of range is an error", `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[1]}]}`, 2, nil,
			"embedding index 2 is out of range"},
		{"a negative index is an error", `{"data":[{"index":-1,"embedding":[1]}]}`, 1, nil,
			"embedding index -1 is out of range"},
		{"a repeated index is an error", `{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[1]}]}`, 2, nil,
			"embedding index 1 appears twice"},
		{"an index on some items only is an error", `{"data":[{"index":1,"embedding":[1]},{"embedding":[1]}]}`, 2, nil,
			"1 of 2 embeddings lack an index"},
		{"an empty vector is an error", `{"data":[{"index":0,"embedding":[]}]}`, 1, nil, "embedding 0 is empty"},
		{"a null vector is an error", `{"data":[{"index":0,"embedding":null}]}`, 1, nil, "embedding 0 is empty"},
		{"vectors of different lengths are an error", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, 2, nil,
			"embeddings differ in length (2 and 1)"},
		{"a value beyond float32 is an error", `{"data":[{"index":0,"embedding":[1e39]}]}`, 1, nil, "decode response"},
		{"a base64 vector is an error", `{"data":[{"index":0,"embedding":"AACAPw=="}]}`, 1, nil, "decode response"},
		{"missing data is an error", `{"object":"list"}`, 1, nil, "response has no data"},
		{"null data is an error", `{"data":null}`, 1, nil, "response has no data"},
		{"an error object without data carries its message", `{"error":{"message":"bad key"}}`, 1, nil,
			"response has no data: bad key"},
		{"truncated JSON is an error", `{"data":[{"index":0,"embedding":[0.1`, 1, nil, "unexpected end of JSON input"},
		{"trailing data is an error", `{"data":[{"index":0,"embedding":[1]}]} {}`, 1, nil, "decode response"},
		{"a JSON array is an error", `[[1]]`, 1, nil, "decode response"},
		{"an empty body is an error", ``, 1, nil, "decode response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeEmbeddings([]byte(tt.body), tt.n)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.output, tt.want) {
				t.Errorf("output = %v, want %v", got.output, tt.want)
			}
		})
	}
}

func TestServerMessage(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct {
		name        string
		contentType string
		body        string
		want        string
	}{
		{"the hosted API's error.message", "application/json",
			`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`,
			"Incorrect API key provided"},
		{"an error string", "application/json", `{"error":"model not loaded"}`, "model not loaded"},
		{"an error object with a nested error string", "application/json", `{"error":{"error":"nested"}}`, "nested"},
		{"a message field", "application/json", `{"message":"quota"}`, "quota"},
		{"a detail field", "application/json", `{"detail":"not found"}`, "not found"},
		{"JSON without a message field", "application/json", `{"code":500}`, ""},
		{"JSON whose error is a number", "application/json", `{"error":500,"message":"fallback"}`, "fallback"},
		{"an HTML page's title", "text/html; charset=utf-8",
			"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", "502 Bad Gateway"},
		{"an HTML page without a content type", "", "<!DOCTYPE html><html><head><TITLE>\n Oops \n</TITLE>", "Oops"},
		{"an HTML page without a title", "text/html", "<html><body><h1>Error</h1></body></html>", ""},
		{"plain text folded to one line", "text/plain", "line one\r\n\tline two  ", "line one line two"},
		{"control characters are dropped", "text/plain", "a\x00b\x1bc", "a b c"},
		{"invalid UTF-8 is dropped", "application/octet-stream", "\xff\xfe\x00", ""},
		{"an empty body", "", "   ", ""},
		{"JSON-looking text that is not JSON is text", "", `{not json`, "{not json"},
		{"long text is cut with an ellipsis", "text/plain", long, strings.TrimSpace(long)[:maxServerMessage-1] + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverMessage(tt.contentType, []byte(tt.body)); got != tt.want {
				t.Errorf("serverMessage = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzDecodeEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}],"model":"m","usage":{"t":1}}`), 2)
	f.Add([]byte(`{"data":[{"embedding":[1]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e39]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[0.1`), 1)
	f.Add([]byte(`{"error":{"message":"x"}}`), 3)
	f.Add([]byte(`[]`), 0)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1<<10 {
			return
		}
		got, err := decodeEmbeddings(body, n)
		if err != nil {
			return
		}
		if len(got.output) != n {
			t.Fatalf("%d vectors for %d inputs", len(got.output), n)
		}
		for i, v := range got.output {
			if len(v) == 0 || len(v) != len(got.output[0]) {
				t.Fatalf("vector %d has length %d (first %d)", i, len(v), len(got.output[0]))
			}
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("vector %d holds %v", i, x)
				}
			}
		}
	})
}

func FuzzServerMessage(f *testing.F) {
	f.Add("application/json", []byte(`{"error":{"message":"boom"}}`))
	f.Add("text/html", []byte(`<html><title>502</title></html>`))
	f.Add("text/plain", []byte("a\nb"))
	f.Add("", []byte("\xff<title>\xfe</title>"))
	f.Add("text/html; charset=\"", []byte(`<title>`))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		msg := serverMessage(contentType, body)
		if !utf8.ValidString(msg) {
			t.Fatalf("message %q is not UTF-8", msg)
		}
		if n := utf8.RuneCountInString(msg); n > maxServerMessage+1 {
			t.Fatalf("message has %d runes", n)
		}
		for _, r := range msg {
			if !unicode.IsPrint(r) && r != ' ' {
				t.Fatalf("message %q holds %U", msg, r)
			}
		}
		if msg != strings.TrimSpace(msg) {
			t.Fatalf("message %q has surrounding space", msg)
		}
	})
}
