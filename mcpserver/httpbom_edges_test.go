package mcpserver

import (
	"strings"
	"testing"
)

// TestPOSTBodyBOMIgnored: a POST body that starts with a UTF-8 byte order
// mark (a client writing through .NET's Encoding.UTF8, PowerShell's
// Invoke-RestMethod with a UTF-8 file) was refused as "invalid character
// 'ï' looking for beginning of value", naming a character the client never
// sent; it is ignored, as RFC 8259 allows and as a stdio line's is
// (TestStdioBOM).
func TestPOSTBodyBOMIgnored(t *testing.T) {
	_, base := anonHTTP(t, "")
	a := post(t, base, "\ufeff"+initBody, nil)
	if a.status != 200 || !strings.Contains(a.body, `"result"`) {
		t.Fatalf("initialize after a BOM: %d %.300s", a.status, a.body)
	}
	h := map[string]string{sessionHeader: a.header.Get(sessionHeader), versionHeader: "2025-06-18"}
	post(t, base, "\ufeff"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"x"}}}`
	if a := post(t, base, "\ufeff"+call, h); a.status != 200 || !strings.Contains(a.body, `"result"`) || strings.Contains(a.body, `"error"`) {
		t.Errorf("a call after a BOM: %d %.300s", a.status, a.body)
	}
}
