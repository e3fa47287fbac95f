package host

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestInferenceBackend429RateLimited: a backend's 429 Too Many Requests
// (its rate limit or quota) was Unavailable, "the backend is down", so a
// caller could not tell being throttled from an outage and backed off as
// for neither. It is RateLimited, with data.retry_after_ms when the
// backend sent Retry-After and without it when not, as the MCP bridge's
// 429 is.
func TestInferenceBackend429RateLimited(t *testing.T) {
	for _, retry := range []string{"", "3"} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			if retry != "" {
				w.Header().Set("Retry-After", retry)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached for requests"}}`))
		}, 0)
		_, err := te.call("alice", "complete", nil)
		terr := abi.AsToolError(err, abi.Internal)
		if terr.Code != abi.RateLimited || !strings.Contains(terr.Message, "Rate limit reached") || !strings.Contains(terr.Message, "429") {
			t.Fatalf("Retry-After %q: %v; want RateLimited quoting the backend's 429", retry, err)
		}
		m, _ := terr.Data.(map[string]any)
		ms, has := m["retry_after_ms"].(int64)
		if retry == "" && has || retry == "3" && ms != 3000 {
			t.Errorf("Retry-After %q: data %v; want retry_after_ms only when sent", retry, terr.Data)
		}
	}
}
