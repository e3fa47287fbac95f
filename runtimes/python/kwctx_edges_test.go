package python_test

import (
	"testing"
	"time"
)

// TestKeywordOnlyCtxIsGiven: a handler written def t(params, *, ctx=None)
// (ctx keyword-only with a default, a common way to make it optional)
// was called t(params): ctx stayed None and the tool's first ctx.log or
// ctx.call_tool failed with "'NoneType' object has no attribute". A
// keyword-only parameter named ctx is now given the call's Context by
// keyword; one under another name is left to its default.
func TestKeywordOnlyCtxIsGiven(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "kwctx.py", `from aios_sdk import tool

@tool(name="kw-ctx", parameters={})
def kw_ctx(params, *, ctx=None):
    return {"has_ctx": ctx is not None, "tool": ctx.tool if ctx is not None else None}

@tool(name="kw-other", parameters={})
def kw_other(params, *, other=7):
    return {"other": other}
`)
	v, err := call(h, "kw-ctx", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.(map[string]any); m["has_ctx"] != true || m["tool"] != "kw-ctx" {
		t.Errorf("kw-ctx = %v, want has_ctx true and tool kw-ctx", v)
	}
	v, err = call(h, "kw-other", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.(map[string]any); m["other"] != int64(7) {
		t.Errorf("kw-other = %#v, want other 7 (its default)", v)
	}
}
