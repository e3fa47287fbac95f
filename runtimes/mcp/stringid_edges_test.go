package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAnswerUnderStringIDFailsAtOnce: a server answering request 7 under
// the id "7" left the call waiting until its deadline (the go-sdk drops
// an answer whose id matches no request by type and value), and the
// caller got Timeout. The call fails at once with ProviderError naming
// what the server did, and the session goes on serving.
func TestAnswerUnderStringIDFailsAtOnce(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p89Config(t, "plain", "p", "stringid", "ok")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	start := time.Now()
	_, err = call(t, p, "mcp-p-stringid", nil, 20*time.Second)
	took := time.Since(start)
	if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), "a string: JSON-RPC answers must carry the request's id as sent") {
		t.Fatalf("after %v: %v (%v); want ProviderError naming the string id", took, err, abi.CodeOf(err))
	}
	if took > 10*time.Second {
		t.Errorf("the call took %v: it waited for its deadline", took)
	}
	t.Log(err)
	res, err := call(t, p, "mcp-p-ok", nil, 20*time.Second)
	if err != nil {
		t.Fatalf("next call: %v", err)
	}
	if !strings.Contains(formatValue(res), "p: ok") {
		t.Errorf("next call: %s", formatValue(res))
	}
}
