package discovery

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// A call that resolved a tool's version just before a hot reload and
// reaches the old generation after the swap is forwarded to the new code
// when the tool's definition is the same. The reload may have changed the
// version in a way that breaks its callers — a new major version (or a
// new minor of a 0.x one), or an older version: the pipeline resolved 1.x
// (a caller asking for ^1 to keep away from 2.0), and the 2.0.0 code
// served it, its audit record saying 1.0.0.
func TestForwardNotAcrossBreakingVersion(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		forward  bool
	}{
		{"1.0.0", "2.0.0", false},
		{"2.0.0", "1.9.0", false},
		{"0.1.0", "0.2.0", false},
		{"1.2.0", "1.1.0", false},
		{"1.0.0", "1.0.1", true},
		{"1.0.0", "1.3.0", true},
	} {
		t.Run(tc.from+"_to_"+tc.to, func(t *testing.T) {
			h, plugins := newCapEnv(t)
			path := filepath.Join(plugins, "p.capfake")
			writeCap(t, path, capSpec{ID: "org.probe.ver", Tool: "t", Version: tc.from, Mark: "old"})
			testutil.Eventually(t, "old loaded", func() bool { _, err := h.Registry().Resolve("t", ""); return err == nil })
			old, _ := h.Registry().Resolve("t", "")
			writeCap(t, path, capSpec{ID: "org.probe.ver", Tool: "t", Version: tc.to, Mark: "new"})
			testutil.Eventually(t, "new loaded", func() bool {
				e, err := h.Registry().Resolve("t", "")
				return err == nil && e.Def.Version == tc.to
			})
			res, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: tc.from, Params: map[string]any{}}, nil)
			if tc.forward {
				if err != nil || fmt.Sprint(res.(map[string]any)["mark"]) != "new" {
					t.Fatalf("a call of %s reaching the old generation after a reload to %s: %v, %v; want it served by the new code", tc.from, tc.to, res, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("a call resolved at %s was served by the code of %s: %v", tc.from, tc.to, res)
			}
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), tc.to) {
				t.Fatalf("want Unavailable naming the new version %s, got %v", tc.to, err)
			}
		})
	}
}

type versionEnv struct {
	abi.Env
	served []string
}

func (e *versionEnv) ServedVersion(v string) { e.served = append(e.served, v) }

// TestForwardReportsServedVersion: a call forwarded to the new code of a
// patch or minor release was recorded (CallInfo, audit) under the version
// the pipeline had looked up, not the one that ran (p91 found it); the
// generation now tells the host's Env (abi.VersionReporter) which did.
func TestForwardReportsServedVersion(t *testing.T) {
	h, plugins := newCapEnv(t)
	path := filepath.Join(plugins, "p.capfake")
	writeCap(t, path, capSpec{ID: "org.probe.ver", Tool: "t", Version: "1.0.0", Mark: "old"})
	testutil.Eventually(t, "old loaded", func() bool { _, err := h.Registry().Resolve("t", ""); return err == nil })
	old, _ := h.Registry().Resolve("t", "")
	// The old generation, still serving: nothing to report.
	env := &versionEnv{}
	if _, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, env); err != nil || len(env.served) != 0 {
		t.Fatalf("a call served by its own generation: %v, reported %q", err, env.served)
	}
	writeCap(t, path, capSpec{ID: "org.probe.ver", Tool: "t", Version: "1.0.1", Mark: "new"})
	testutil.Eventually(t, "new loaded", func() bool {
		e, err := h.Registry().Resolve("t", "")
		return err == nil && e.Def.Version == "1.0.1"
	})
	res, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, env)
	if err != nil || fmt.Sprint(res.(map[string]any)["mark"]) != "new" || len(env.served) != 1 || env.served[0] != "1.0.1" {
		t.Fatalf("a call of 1.0.0 forwarded to 1.0.1: %v, %v, reported %q; want the new code, reported 1.0.1", res, err, env.served)
	}
}
