package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLevelOptionsCheckedWhereDeclared: a permissionLevel or latencyClass
// that is not one of the ABI's words ('admin', 'quick') failed the load
// with the registry's "provider org.x, tool t: unknown permission level
// "admin" …", naming the file alone; the Python SDK refuses it at the
// line declaring the tool. The JS SDK now does too, with the same words.
func TestLevelOptionsCheckedWhereDeclared(t *testing.T) {
	rt := newRuntime(t, Options{LoadTimeout: 5 * time.Second})
	levels := strings.Join([]string{abi.PermissionPublic, abi.PermissionLow, abi.PermissionMedium, abi.PermissionHigh, abi.PermissionCritical}, ", ")
	classes := strings.Join([]string{abi.LatencyFast, abi.LatencyNormal, abi.LatencySlow}, ", ")
	for _, tc := range []struct{ member, value, words string }{
		{"permissionLevel", "admin", levels},
		{"permission_level", "High", levels},
		{"latencyClass", "quick", classes},
	} {
		src := "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 't', " + tc.member + ": '" + tc.value + "', parameters: {} }, () => 1);\n"
		path := writeSource(t, "lv.js", src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err == nil {
			t.Errorf("%s %q: loaded, want an error", tc.member, tc.value)
			continue
		}
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		want := `t: ` + tc.member + ` "` + tc.value + `" is not one of ` + tc.words
		if !strings.Contains(msg, want) || !strings.Contains(msg, "(at lv.js:2:") {
			t.Errorf("%q; want %q and the declaring line (at lv.js:2:…)", msg, want)
		}
	}
	path := writeSource(t, "ok.js", "aios.registerTool({ name: 'a', permissionLevel: 'critical', latency_class: 'slow', parameters: {} }, () => 1);\naios.registerTool({ name: 'b', latency_class: '', parameters: {} }, () => 1);\n")
	if _, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS); err != nil {
		t.Fatalf("valid levels: %v", err)
	}
}
