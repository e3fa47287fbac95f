package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A call still running when its provider closes ends Unavailable saying the
// provider was closed (e1a1ee4), for a sync tool and for an async one. The
// worker of an async tool exited at once when Close shut its stdin (the
// asyncio loop took EOF for "the host is gone"), so its call ended
// ProviderCrashed ("worker exited") though nothing crashed.
func TestProbeCloseUnderAsyncCall(t *testing.T) {
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
