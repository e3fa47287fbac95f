package server

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestBigWholeFloatResult: a result float from 2^53 up to 1e21
// reaches a JSON-RPC client as that float. encoding/json wrote 2^60 as
// 1152921504606847000, which a client reading integers exactly (this
// repository's jsonrpc client, and so a host importing the tool as a
// remote adapter) took for the int64 1152921504606847000.
func TestBigWholeFloatResult(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	var res jsonrpc.ToolsCallResult
	args := map[string]any{"value": json.Number("1.152921504606847e+18")} // the float 2^60
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": args}, &res); err != nil {
		t.Fatal(err)
	}
	got, err := abi.Normalize(res.Value)
	if want := map[string]any{"value": float64(1 << 60)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("value %#v (%v), want %#v", got, err, want)
	}
	var text any
	if len(res.Content) != 1 || abi.UnmarshalJSONValue([]byte(res.Content[0].Text), &text) != nil || !reflect.DeepEqual(text, got) {
		t.Fatalf("content %+v does not read back as the value", res.Content)
	}
}
