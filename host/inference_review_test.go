package host

import (
	"net/http"
	"strings"
	"testing"

	"net/http/httptest"

	"github.com/aios-host/aios-host/config"
)

// A backend that quotes the key in a long error body: the message is cut
// at 512 bytes, and a cut through the key left its first part in the
// message, which the redaction (looking for the whole key) did not see.
func TestInferenceKeyNotLeakedByClip(t *testing.T) {
	const key = "sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The key starts 20 bytes before the cut.
		http.Error(w, strings.Repeat("x", 512-20)+r.Header.Get("Api-Key")+" is not a valid key", http.StatusUnauthorized)
	}))
	defer srv.Close()
	t.Setenv("AIOS_TEST_KEY", key)
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.APIKeyEnv = "AIOS_TEST_KEY"
		c.Inference.APIKeyHeader = "api-key"
	})
	_, err := te.call("alice", "complete", nil)
	if err == nil {
		t.Fatal("complete succeeded")
	}
	if strings.Contains(err.Error(), key[:12]) {
		t.Fatalf("the key's first part reached the caller: %v", err)
	}
	if !strings.Contains(err.Error(), "[redacted") {
		t.Fatalf("no redaction said: %v", err)
	}
}
