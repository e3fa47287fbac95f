package mcpserver

import (
	"testing"
)

// TestStdioBOM: a client that writes its stdin through a UTF-8
// encoder with a byte order mark (.NET's Encoding.UTF8, PowerShell's
// utf8 before 6) starts the stream with U+FEFF. RFC 8259 lets a parser
// ignore it; aios-host answered the client's initialize with -32700
// "invalid character 'ï' looking for beginning of value", naming a
// character the client never wrote, and the session never started. A
// byte order mark before a message is ignored.
func TestStdioBOM(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.send("\ufeff" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if l := ss.mustRead(); l != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("a ping after a byte order mark: %s", l)
	}
	ss.ping(2)
}
