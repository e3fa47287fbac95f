package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestJSONResultText: a JSON ToolResult whose text is not Unicode —
// an invalid UTF-8 byte, or an escaped lone surrogate ("\ud800") — is the
// guest's InvalidResult, as a MessagePack one with an invalid str is
// (docs/abi.md §2): encoding/json read each as U+FFFD, so two member
// names became one and a value was lost without a word.
func TestJSONResultText(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"{\"value\":{\"a\xff\":1,\"a\xfe\":2}}", "UTF-8"},
		{"{\"value\":\"x\xc3\"}", "UTF-8"},
		{`{"value":{"\ud800":1,"\udc00":2}}`, `\ud800`},
		{`{"value":["ok","\uDC00"]}`, `\uDC00`},
	} {
		v, gerr, perr := decodeResult([]byte(c.text))
		if perr != nil || gerr == nil || gerr.Code != abi.InvalidResult || !strings.Contains(gerr.Message, c.want) {
			t.Errorf("%q: got %#v, %v, %v; want InvalidResult naming %s", c.text, v, gerr, perr, c.want)
		}
	}
	v, gerr, perr := decodeResult([]byte(`{"value":"\ud83d\ude00\u00e9"}`))
	if perr != nil || gerr != nil || v != "😀é" {
		t.Errorf("a surrogate pair: %#v, %v, %v", v, gerr, perr)
	}
}

// TestJSONHostCallText: a JSON guest's call_tool request whose text is
// not Unicode is InvalidParams naming what (docs/abi.md §2), and the tool
// is not called: encoding/json made {"\ud800":1,"\udc00":2} the params
// {"\ufffd":2}.
func TestJSONHostCallText(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct{ req, want string }{
				{`{"tool":"t","params":{"\ud800":1,"\udc00":2}}`, `\ud800`},
				{"{\"tool\":\"t\",\"params\":{\"a\xff\":1,\"a\xfe\":2}}", "UTF-8"},
			} {
				g := newEdgeGuest(edgeReg)
				ptr, n := pk(g.seg(c.req))
				g.call = fmt.Sprintf("(call $call_tool %s %s)", ptr, n)
				p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
				env := newFakeEnv(p, 3)
				called := false
				env.tools = map[string]func(any) (any, error){"t": func(params any) (any, error) { called = true; return params, nil }}
				_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
				if te, ok := err.(*abi.ToolError); !ok || te.Code != abi.InvalidParams || !strings.Contains(te.Message, c.want) {
					t.Errorf("%q: %v; want InvalidParams naming %s", c.req, err, c.want)
				}
				if called {
					t.Errorf("%q: the tool was called", c.req)
				}
			}
		})
	}
}
