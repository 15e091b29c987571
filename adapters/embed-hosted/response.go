package embedhosted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Response size limits. A success body grows with the number of inputs; an
// error body is only read for its message.
const (
	// maxBodyBase plus maxBodyPerInput per input bounds a success body:
	// 512 KiB is room for one 8192-dimension vector written with 20 digits
	// a value and more.
	maxBodyBase     = 1 << 20
	maxBodyPerInput = 512 << 10
	// maxErrorBody bounds the body of a non-2xx response.
	maxErrorBody = 64 << 10
	// maxServerMessage bounds the server text quoted in an error message,
	// in runes.
	maxServerMessage = 300
)

// maxBody is the most bytes read from a success response to n inputs.
func maxBody(n int) int64 {
	return maxBodyBase + int64(n)*maxBodyPerInput
}

// embeddingsBody is the part of the APIs' response body the client reads.
type embeddingsBody struct {
	Data  []embeddingItem `json:"data"`
	Model json.RawMessage `json:"model"`
	Usage json.RawMessage `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type embeddingItem struct {
	Index     *int      `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// decodedEmbeddings is a success body, checked.
type decodedEmbeddings struct {
	output [][]float32
	model  string
	usage  map[string]any
}

// decodeEmbeddings decodes a success body answering n inputs. It returns
// one vector per input, ordered by the items' "index" (array order when no
// item carries one), and the response's model and usage when present. A
// body that is not such a JSON object, holds another number of embeddings,
// repeats or skips an index, or holds empty, out-of-range or unequal-length
// vectors is an error.
func decodeEmbeddings(body []byte, n int) (decodedEmbeddings, error) {
	var b embeddingsBody
	if err := json.Unmarshal(body, &b); err != nil {
		return decodedEmbeddings{}, fmt.Errorf("decode response: %w", err)
	}
	if b.Data == nil {
		if msg := jsonMessage(b.Error); msg != "" {
			return decodedEmbeddings{}, fmt.Errorf("response has no data: %s", msg)
		}
		return decodedEmbeddings{}, errors.New("response has no data")
	}
	if len(b.Data) != n {
		return decodedEmbeddings{}, fmt.Errorf("response holds %d embeddings for %d inputs", len(b.Data), n)
	}
	out := make([][]float32, n)
	indexed := 0
	for _, item := range b.Data {
		if item.Index != nil {
			indexed++
		}
	}
	if indexed != 0 && indexed != n {
		return decodedEmbeddings{}, fmt.Errorf("%d of %d embeddings lack an index", n-indexed, n)
	}
	for i, item := range b.Data {
		at := i
		if item.Index != nil {
			at = *item.Index
		}
		switch {
		case at < 0 || at >= n:
			return decodedEmbeddings{}, fmt.Errorf("embedding index %d is out of range for %d inputs", at, n)
		case out[at] != nil:
			return decodedEmbeddings{}, fmt.Errorf("embedding index %d appears twice", at)
		case len(item.Embedding) == 0:
			return decodedEmbeddings{}, fmt.Errorf("embedding %d is empty", at)
		case len(item.Embedding) != len(b.Data[0].Embedding):
			return decodedEmbeddings{}, fmt.Errorf("embeddings differ in length (%d and %d)",
				len(b.Data[0].Embedding), len(item.Embedding))
		}
		out[at] = item.Embedding
	}
	d := decodedEmbeddings{output: out}
	// model and usage are informative: a value of an unexpected type is
	// left out rather than failing a response whose vectors are good.
	_ = json.Unmarshal(b.Model, &d.model)
	if len(b.Usage) > 0 {
		var usage map[string]any
		if json.Unmarshal(b.Usage, &usage) == nil {
			d.usage = usage
		}
	}
	return d, nil
}

// serverMessage extracts a human-readable message from an error response
// body: the "error.message", "error", "message" or "detail" field of a JSON
// body, the title of an HTML page, or the text of a plain body. It returns
// "" when there is nothing readable. The result is one line of printable
// text (see clean).
func serverMessage(contentType string, body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	if body[0] == '{' {
		var fields map[string]json.RawMessage
		if json.Unmarshal(body, &fields) == nil {
			for _, key := range []string{"error", "message", "detail"} {
				if msg := jsonMessage(fields[key]); msg != "" {
					return clean(msg)
				}
			}
			return ""
		}
	}
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "text/html" || isHTML(body) {
		return clean(htmlTitle(body))
	}
	if !utf8.Valid(body) {
		return ""
	}
	return clean(string(body))
}

// jsonMessage reads an error message from a JSON value: a string, or an
// object with a string "message" (the hosted APIs' {"error":{"message":…}}),
// "error" or "detail".
func jsonMessage(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	for _, key := range []string{"message", "error", "detail"} {
		if json.Unmarshal(obj[key], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// isHTML reports whether body starts like an HTML document.
func isHTML(body []byte) bool {
	head := strings.ToLower(string(body[:min(len(body), 64)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

// htmlTitle returns the text of the first <title> element, or "".
func htmlTitle(body []byte) string {
	lower := bytes.ToLower(body)
	start := bytes.Index(lower, []byte("<title"))
	if start < 0 {
		return ""
	}
	open := bytes.IndexByte(lower[start:], '>')
	if open < 0 {
		return ""
	}
	start += open + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	title := body[start : start+end]
	if !utf8.Valid(title) {
		return ""
	}
	return string(title)
}

// clean folds s to one line of printable text of at most maxServerMessage
// runes, and an ellipsis when it had more.
func clean(s string) string {
	var b strings.Builder
	runes := 0
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			space = b.Len() > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if runes+need > maxServerMessage {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			runes++
			space = false
		}
		b.WriteRune(r)
		runes++
	}
	return b.String()
}
