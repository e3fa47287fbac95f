package discovery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteBigWholeFloatParams: a remote adapter receives a float
// param from 2^53 up to 1e21 as a float. encoding/json wrote 2^60 as the
// integer literal 1152921504606847000, which an aios-host server (and any
// reader of exact integers) took for another number, an int64.
func TestRemoteBigWholeFloatParams(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		// Echo the arguments exactly as they were written.
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"value":` + string(req.Params.Arguments) + `}}`))
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.floats", "name": "F", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"http": "`+srv.URL+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	params := map[string]any{"f": float64(1 << 60), "i": int64(1<<53 + 1), "l": []any{-float64(1 << 63), 1.5}}
	got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "echo", Params: params, Deadline: time.Now().Add(5 * time.Second)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, params) {
		t.Fatalf("the adapter got %#v, want %#v", got, params)
	}
}
