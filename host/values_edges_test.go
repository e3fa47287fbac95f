package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A provider's error data is a value as its result is: member names that
// are not UTF-8 ({"a\xff":1,"a\xfe":2}) became one name twice once
// written as JSON, and a Go value with no JSON form (a func, NaN) failed
// the caller's answer. The caller gets canonical data, or none with the
// reason in the message.
func TestErrorDataCanonical(t *testing.T) {
	e := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.errdata"})
	datas := map[string]any{
		"utf8":  map[string]any{"a\xff": int64(1), "a\xfe": int64(2)},
		"gofn":  map[string]any{"f": func() {}},
		"gonum": map[string]any{"n": 3, "u": uint8(4)},
	}
	for name, d := range datas {
		p.MustRegister(abi.ToolDef{Name: "errdata-" + name, Version: "1.0.0"},
			func(context.Context, any, abi.Env) (any, error) {
				return nil, &abi.ToolError{Code: abi.ProviderError, Message: "failed", Data: d}
			})
	}
	if err := e.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for name := range datas {
		_, err := e.call("alice", "errdata-"+name, nil)
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != abi.ProviderError {
			t.Fatalf("%s: %v", name, err)
		}
		if te.Data != nil && !abi.IsCanonical(te.Data) {
			t.Errorf("%s: error data not canonical: %#v", name, te.Data)
		}
		if _, jerr := json.Marshal(te.Data); jerr != nil {
			t.Errorf("%s: error data has no JSON form: %v", name, jerr)
		}
		switch name {
		case "gonum":
			if m, _ := te.Data.(map[string]any); m == nil || m["n"] != int64(3) || m["u"] != int64(4) {
				t.Errorf("gonum: data %#v, want {n:3,u:4} as int64", te.Data)
			}
		default:
			if te.Data != nil || !strings.Contains(te.Message, "error data") {
				t.Errorf("%s: data %#v, message %q: want no data and the reason in the message", name, te.Data, te.Message)
			}
		}
	}
}
