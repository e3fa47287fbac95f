package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBudgetTypedContent: the go-sdk decodes a tools/call result's
// "content" into []*wireContent, a ~288-byte struct per element, where
// the generic estimate charges `{}` 64 bytes; the bridge charges each
// object 384 (typedObjectCost), so the largest message of empty objects
// the check passes decodes to at most twice the budget (a probe found
// 2.9×, and about 2 GiB at the default budget).
func TestBudgetTypedContent(t *testing.T) {
	const budget = 16 << 20
	b := &msgBudget{server: "s", maxBytes: DefaultMaxMessageBytes, decode: budget}
	// Largest number of `{}` elements the check still passes.
	build := func(n int) []byte {
		var m bytes.Buffer
		m.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"content":[`)
		m.WriteString(strings.Repeat("{},", n-1))
		m.WriteString(`{}]}}`)
		return m.Bytes()
	}
	n := budget / 40
	msg := build(n)
	for b.check(msg, "a response body") != nil {
		n -= n / 20
		msg = build(n)
	}
	// The stdio path passes it too.
	if _, err := io.ReadAll(newMessageReader(bytes.NewReader(append(msg, '\n')), b)); err != nil {
		t.Fatalf("stdio refused a message the check passed: %v", err)
	}
	var decodeErr error
	alloc := allocDuring(func() {
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			decodeErr = err
			return
		}
		var r mcpsdk.CallToolResult
		decodeErr = json.Unmarshal(m.(*jsonrpc.Response).Result, &r)
	})
	t.Logf("%d bytes (%d elements) passed a %d MiB decode budget; decoding allocated %d MiB (%v)",
		len(msg), n, budget>>20, alloc>>20, decodeErr)
	if alloc > 2*budget {
		t.Fatalf("a message that passed the %d MiB decode budget allocated %d MiB when the go-sdk decoded it (%.1f× the budget)",
			budget>>20, alloc>>20, float64(alloc)/budget)
	}
}
