package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// TestMetaTimeoutMaxInt64: _meta["org.aios/timeout_ms"] of
// 9223372036854775807 (a Java or Go client's "no limit" sentinel, which
// JSON-RPC's tools/call takes as timeout_ms) ran nowhere: the go-sdk reads
// it as the float 2^63, and it was refused as "not a whole number of
// milliseconds above 0", quoting 9223372036854776000, a number the client
// did not send. It runs, within limits.max_deadline; a value past 2^63−1
// (18446744073709551615) is refused naming the range, quoted as the float
// it was read as (1.8446744073709552e+19), as is a depth past its range.
func TestMetaTimeoutMaxInt64(t *testing.T) {
	_, s := newTestHost(t, exportCfg)
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	call := func(id int, meta string) string {
		ss.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"value":1},"_meta":` + meta + `}}`)
		return ss.read(30 * time.Second)
	}
	if l := call(1, `{"org.aios/timeout_ms":9223372036854775807}`); !strings.Contains(l, `"text":"{\"value\":1}"`) {
		t.Errorf("timeout_ms 2^63-1: %s; want the call run", l)
	}
	l := call(2, `{"org.aios/timeout_ms":18446744073709551615}`)
	if !strings.Contains(l, `InvalidParams`) || !strings.Contains(l, "from 1 to 9223372036854775807") || !strings.Contains(l, "got 1.8446744073709552e+19") {
		t.Errorf("timeout_ms 2^64-1: %s; want InvalidParams naming the range and the value as read", l)
	}
	if l := call(3, `{"org.aios/depth":9223372036854775807}`); !strings.Contains(l, `InvalidParams`) || strings.Contains(l, "9223372036854776000") || !strings.Contains(l, "got 9.223372036854776e+18") {
		t.Errorf("depth 2^63-1: %s; want InvalidParams quoting the value as read, not as another integer", l)
	}
}
