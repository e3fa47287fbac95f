package python_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A call still running when its provider closes ends Unavailable saying the
// provider was closed (e1a1ee4), for a sync tool and for an async one. The
// worker of an async tool exited at once when Close shut its stdin (the
// asyncio loop took EOF for "the host is gone"), so its call ended
// ProviderCrashed ("worker exited") though nothing crashed.
func TestCloseUnderAsyncCall(t *testing.T) {
	for _, src := range []string{
		"import time\nfrom aios_sdk import tool\n@tool(name='slow')\ndef slow(p, ctx):\n    time.sleep(30)\n    return 1\n",
		"import asyncio\nfrom aios_sdk import tool\n@tool(name='slow')\nasync def slow(p, ctx):\n    await asyncio.sleep(30)\n    return 1\n",
	} {
		rt := newRuntime(t, nil)
		h := newHost(t, rt)
		p := loadTool(t, h, "slowclose.py", src)
		errc := make(chan error, 1)
		go func() {
			_, err := call(h, "slow", map[string]any{}, 20*time.Second)
			errc <- err
		}()
		time.Sleep(500 * time.Millisecond) // the call runs
		_ = p.Close()
		select {
		case err := <-errc:
			if abi.CodeOf(err) != abi.Unavailable {
				t.Errorf("a call in flight at Close (%s): %v, want Unavailable saying the provider was closed", src[:14], err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the call in flight at Close had not returned 10 s later")
		}
	}
}

// A tool waiting in a host call (ctx.call_tool) when its provider closed
// ended ProviderError "EOFError: " (sync or async tool): the worker's read
// of the host call's answer met the end of its input, closed by Close, and
// the bare EOFError reached the tool as its own failure.
func TestCloseUnderHostCall(t *testing.T) {
	for _, src := range []string{
		"from aios_sdk import tool, provider, Capability\nprovider(id='org.test.hc', capabilities=[Capability.CallTool('snooze')])\n@tool(name='hc')\ndef hc(p, ctx):\n    return ctx.call_tool('snooze', {})\n",
		"from aios_sdk import tool, provider, Capability\nprovider(id='org.test.hc', capabilities=[Capability.CallTool('snooze')])\n@tool(name='hc')\nasync def hc(p, ctx):\n    return await ctx.call_tool('snooze', {})\n",
	} {
		rt := newRuntime(t, nil)
		h := newHost(t, rt)
		np := native.New(abi.ProviderInfo{ID: "org.test.snooze"})
		np.MustRegister(abi.ToolDef{Name: "snooze", Version: "1.0.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			select {
			case <-ctx.Done():
			case <-time.After(4 * time.Second):
			}
			return true, nil
		})
		if err := h.AddProvider(context.Background(), np, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		p := loadTool(t, h, "hc.py", src)
		errc := make(chan error, 1)
		go func() {
			_, err := call(h, "hc", map[string]any{}, 20*time.Second)
			errc <- err
		}()
		time.Sleep(700 * time.Millisecond) // hc waits in its host call
		_ = p.Close()
		select {
		case err := <-errc:
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "closed") {
				t.Errorf("a call in a host call at Close (%s tool): %v, want Unavailable saying the provider was closed", map[bool]string{true: "async", false: "sync"}[strings.Contains(src, "async")], err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the call in flight at Close had not returned 10 s later")
		}
	}
}
