package native

import (
	"context"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorDataBytesAsBase64: a native tool's *abi.ToolError whose Data
// held a []byte (the bytes that failed to parse, say) in a map[string]any
// had its data dropped by the host, "(its error data was dropped: … raw
// bytes are not a JSON value)", where the same bytes in a struct were
// base64 and a Go guest's *aios.Error data is converted with encoding/json's
// rules ([]byte as base64). The data keeps them as base64 now; the tool's
// own ToolError and map are not changed.
func TestErrorDataBytesAsBase64(t *testing.T) {
	data := map[string]any{"raw": []byte("ab"), "at": int64(3)}
	p := New(abi.ProviderInfo{ID: "org.example.errbytes"})
	p.MustRegister(abi.ToolDef{Name: "parse"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, &abi.ToolError{Code: abi.InvalidParams, Message: "cannot parse", Data: data}
	})
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "parse"}, nil)
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.InvalidParams {
		t.Fatalf("%v, want InvalidParams", err)
	}
	got, nerr := abi.Normalize(te.Data)
	if want := map[string]any{"raw": "YWI=", "at": int64(3)}; nerr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("data %#v (%v), want %#v", te.Data, nerr, want)
	}
	if _, still := data["raw"].([]byte); !still {
		t.Fatalf("the tool's own data map was changed: %#v", data)
	}
}
