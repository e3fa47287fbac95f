package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeAlloc is the bytes allocated while f ran.
func probeAlloc(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestProbeBudgetTypedContentDecodesPastBudget: the decode budget is
// estimated for a generic decode (16 bytes a value, 48 a map), but the
// go-sdk decodes a tools/call result's "content" into []*wireContent, a
// ~288-byte struct per element. `{}` costs 64 bytes in the estimate and
// ~300 bytes decoded: a result of N empty objects passes the check and
// allocates several times the decode budget. (With the default 256 MiB
// budget, a 7 MB message passes and decodes to about 2 GiB.)
func TestProbeBudgetTypedContentDecodesPastBudget(t *testing.T) {
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
	alloc := probeAlloc(func() {
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
