package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestJSONErrorDataNotUnicodeDropped: a JSON guest's error whose data held
// an invalid UTF-8 byte or an escaped lone surrogate ("\ud800") reached the
// caller with U+FFFD in its place, without a word (encoding/json's
// reading), where the same guest's value is refused naming the byte and a
// MessagePack guest's data is dropped by the pipeline, the reason added to
// the message (docs/abi.md §2: error data that is not Unicode text is
// dropped, the reason added). Now the data is dropped here, the guest's
// code and message kept, the message saying why; the instance is kept.
func TestJSONErrorDataNotUnicodeDropped(t *testing.T) {
	for _, c := range []struct{ name, result, why string }{
		{"byte", "{\"error\":{\"code\":\"NotFound\",\"message\":\"no such user\",\"data\":\"a\xffb\"}}", "byte 0xff"},
		{"surrogate", `{"error":{"code":"NotFound","message":"no such user","data":{"k":["\ud800"]}}}`, `\ud800`},
		{"name", `{"error":{"code":"NotFound","message":"no such user","data":{"\udc00":1,"\udc01":2}}}`, `\udc00`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			g.call = fmt.Sprintf("(i64.const %d)", g.seg(c.result))
			p := edgeLoad(t, edgeEngines[0], Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			for i := range 2 {
				_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.NotFound || te.Data != nil ||
					!strings.HasPrefix(te.Message, "no such user") || !strings.Contains(te.Message, "data was dropped") || !strings.Contains(te.Message, c.why) {
					t.Fatalf("call %d: %#v; want NotFound without data, its message saying the data was dropped and why (%s)", i, err, c.why)
				}
			}
			if n := p.(*Provider).Instances(); n != 1 {
				t.Fatalf("%d instances after two calls; want the one kept", n)
			}
		})
	}
}

// TestJSONResultNumberBeyondFloatIsInvalidResult: a JSON guest's result
// whose value held a number beyond a float64's range (1e400, well-formed
// JSON) was a ProviderError "the guest returned a malformed JSON
// ToolResult" and its instance discarded, where a value with no JSON form
// (NaN in MessagePack, a string that is not UTF-8) is the guest's
// InvalidResult and its instance kept (docs/abi.md §5); such a number in
// an error's data lost the guest's whole error, its code and message, for
// that ProviderError. Now the value is InvalidResult naming the number's
// path, and error data holding one is dropped saying why, the guest's code
// and message kept; the instance is kept either way.
func TestJSONResultNumberBeyondFloatIsInvalidResult(t *testing.T) {
	for _, c := range []struct {
		name, result string
		code         abi.ErrorCode
		want         []string
	}{
		{"value", `{"value":{"a":[1,1e400]}}`, abi.InvalidResult, []string{"not a JSON value", "$.a[1]", "1e400"}},
		{"data", `{"error":{"code":"NotFound","message":"no such user","data":{"n":-1e400}}}`, abi.NotFound, []string{"no such user", "data was dropped", "$.n", "-1e400"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			g.call = fmt.Sprintf("(i64.const %d)", g.seg(c.result))
			p := edgeLoad(t, edgeEngines[0], Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			for i := range 2 {
				_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != c.code || te.Data != nil {
					t.Fatalf("call %d: %#v; want %s without data", i, err, c.code)
				}
				for _, w := range c.want {
					if !strings.Contains(te.Message, w) {
						t.Fatalf("call %d: %q does not say %q", i, te.Message, w)
					}
				}
			}
			if n := p.(*Provider).Instances(); n != 1 {
				t.Fatalf("%d instances after two calls; want the one kept", n)
			}
		})
	}
}

// TestMessagePackErrorDataNotJSONDropped: a MessagePack guest's error
// whose data held a value JSON cannot hold (NaN, an infinity, bin) was
// replaced whole by the host's InvalidResult "NaN is not a JSON number (at
// byte 46 of its ToolResult)": the guest's code and message were lost and
// the value named by no path. As a JSON guest's error data that is not a
// JSON value, and as the pipeline drops a native tool's, the data is
// dropped, the guest's code and message kept, the message naming the
// value's path; the instance is kept.
func TestMessagePackErrorDataNotJSONDropped(t *testing.T) {
	nan := "\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00"
	for _, c := range []struct{ name, data, why string }{
		{"nan", "\x81\xa1n" + nan, "NaN"},
		{"bin", "\x81\xa1b\x92\x01\xc4\x01\x00", "$.b[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := "\x81\xa5error\x83\xa4code\xa8NotFound\xa7message\xacno such user\xa4data" + c.data
			g := newEdgeGuest(edgeReg)
			g.call = fmt.Sprintf("(i64.const %d)", g.seg(res))
			p := edgeLoad(t, edgeEngines[0], Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			for i := range 2 {
				_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.NotFound || te.Data != nil || !strings.HasPrefix(te.Message, "no such user") ||
					!strings.Contains(te.Message, "data was dropped") || !strings.Contains(te.Message, c.why) {
					t.Fatalf("call %d: %#v; want NotFound without data, its message saying the data was dropped and why (%s)", i, err, c.why)
				}
			}
			if n := p.(*Provider).Instances(); n != 1 {
				t.Fatalf("%d instances after two calls; want the one kept", n)
			}
		})
	}
}
