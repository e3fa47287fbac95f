package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessIsolationLocalTimeZone: a worker process was started with
// an environment of its own (no TZ) and, confined, could not read the
// zone files, so its Dates were in UTC while the same provider in the
// host used the host's local time: new Date(2020, 0, 1) was another
// instant, and getHours() another hour, once the file ran unsigned. The
// worker now gets the host's TZ and may read the zone data.
func TestProcessIsolationLocalTimeZone(t *testing.T) {
	if _, err := time.LoadLocation("America/New_York"); err != nil {
		t.Skipf("no zone data here: %v", err)
	}
	t.Setenv("TZ", "America/New_York")
	rt := newRuntime(t, Options{Isolation: IsolationProcess})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "tz.js", `
aios.registerTool({ name: 'tz', parameters: {} }, () => ({ offset: new Date(0).getTimezoneOffset(), summer: new Date(Date.UTC(2020, 6, 1)).getTimezoneOffset(), hour: new Date(0).getHours() }));
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "tz", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, newFakeEnv())
	m, _ := got.(map[string]any)
	if err != nil || m["offset"] != int64(300) || m["summer"] != int64(240) || m["hour"] != int64(19) {
		t.Errorf("worker's local time: %v %v; want New York's (offset 300, summer 240, hour 19)", got, err)
	}
}
