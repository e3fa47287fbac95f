package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestInvalidUTF8SaysWhere: a message with a byte that is not UTF-8 was
// refused as "the message is not valid UTF-8", leaving a client that
// builds 1 MiB of arguments to hunt for the byte; the refusal names the
// byte and its offset, as the host's other refusals of such text do
// (wire.NotUnicodeText; aios-host call names the offset too).
func TestInvalidUTF8SaysWhere(t *testing.T) {
	ts := newTestServer(t, "", false)
	msg := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"a\":\"x\xffy\"}}"
	at := strings.IndexByte(msg, 0xff)
	out := string(ts.s.handleMessage(context.Background(), &session{agent: "cli", transport: "unix"}, []byte(msg)))
	if !strings.Contains(out, "-32700") || !strings.Contains(out, "0xff") || !strings.Contains(out, fmt.Sprintf("offset %d", at)) {
		t.Fatalf("%s; want -32700 naming byte 0xff at offset %d", out, at)
	}
}
