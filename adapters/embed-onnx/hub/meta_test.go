package hub

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzMetaOf: any headers a hub or a file host answers give a size of -1
// or more and a checksum that is empty or a whole hex digest.
func FuzzMetaOf(f *testing.F) {
	f.Add(`"3f1c…"`, "", "812", "", "abc")
	f.Add("", `"9e14d145e6cc3ea8ee187cbac020f7875e11987339076b3f04a2cd3f75085218"`, "", "99262", "1e8dcbdcf694f883c7eb347204c7ff9a4c530c8b")
	f.Add(`W/"c34dd30b04405f1efee2888f74d2923c6e5afc38"`, "", "-5", "x", "")
	f.Fuzz(func(t *testing.T, etag, linkedEtag, length, linkedSize, commit string) {
		h := http.Header{}
		for k, v := range map[string]string{"ETag": etag, "X-Linked-Etag": linkedEtag, "Content-Length": length, "X-Linked-Size": linkedSize, "X-Repo-Commit": commit} {
			if v != "" {
				h.Set(k, v)
			}
		}
		m := metaOf(h)
		if m.size < -1 {
			t.Fatalf("size %d", m.size)
		}
		kind, sum, _ := strings.Cut(m.checksum, ":")
		switch {
		case m.checksum == "":
		case kind == "sha256" && len(sum) == 64 && hexSum.MatchString(sum):
		case kind == "git-sha1" && len(sum) == 40 && hexSum.MatchString(sum):
		default:
			t.Fatalf("checksum %q", m.checksum)
		}
	})
}
