package server

import (
	"strings"
	"testing"
)

// TestLiteralTokenTrimmed: a presented bearer token is trimmed, and
// so are token_env's and token_file's values, but a token written in the
// config (token: |, a block scalar ending in a newline; token: " s3cret")
// was kept as written, so no request could ever present it: every peer
// of the agent got 401 'invalid bearer token', blaming the token it sent
// right. It is trimmed as the others are, and one of only white space is
// refused naming the entry.
func TestLiteralTokenTrimmed(t *testing.T) {
	for _, lit := range []string{"s3cret-literal\n", " s3cret-literal", "s3cret-literal \r\n"} {
		v, err := TokenConfig{Agent: "peer", Token: lit}.value("")
		if err != nil || v != "s3cret-literal" {
			t.Errorf("token %q: %q, %v; want s3cret-literal, as a peer presents it", lit, v, err)
		}
	}
	if _, err := (TokenConfig{Agent: "peer", Token: " \n"}).value(""); err == nil || !strings.Contains(err.Error(), "agent peer") || !strings.Contains(err.Error(), "empty") {
		t.Errorf("a token of white space: %v; want it refused as empty, naming the agent", err)
	}
}
