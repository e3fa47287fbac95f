package python_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const pinnedTool = `import time
from aios_sdk import provider, tool
import helper

provider(id="org.test.pinned", capabilities=[])

@tool(name="who", parameters={"type": "object", "properties": {"sleep": {"type": "number"}, "extra": {"type": "boolean"}}})
def who(params):
    time.sleep(params.get("sleep", 0))
    if params.get("extra"):
        import extra
        return extra.WHO
    return "tool ORIGINAL; " + helper.WHO
`

func sum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func callWho(p abi.Provider, params map[string]any, d time.Duration) (any, error) {
	return p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "who", Params: params, Deadline: time.Now().Add(d)}, nil)
}

// killWorker makes the provider replace its worker: a call past its
// deadline kills the worker's process group.
func killWorker(t *testing.T, p abi.Provider) {
	t.Helper()
	if _, err := callWho(p, map[string]any{"sleep": 5}, 200*time.Millisecond); abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("sleeping call: %v, want Timeout", err)
	}
}

// TestEditedFileNeverRuns: a worker started after the provider loaded (a
// replacement after a timeout, or pool growth) runs the file as the
// provider loaded it, never an edit of it, and still serves when the file
// is broken or deleted; the host reloads a changed file through discovery.
// (A signed provider's edited file used to run at the card's trust after
// the first worker was replaced, and a broken file made every later call
// Unavailable.)
func TestEditedFileNeverRuns(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "tool.py", pinnedTool)
	dir := filepath.Dir(path)
	helper := filepath.Join(dir, "helper.py")
	for _, signed := range []bool{false, true} {
		name := map[bool]string{false: "unsigned", true: "signed"}[signed]
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(pinnedTool), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(helper, []byte(`WHO = "helper ORIGINAL"`), 0o644); err != nil {
				t.Fatal(err)
			}
			src := abi.Source{Path: path, Unit: dir}
			if signed {
				src.Pinned = map[string]string{path: sum(t, path), helper: sum(t, helper)}
			}
			p, err := rt.Load(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			want := "tool ORIGINAL; helper ORIGINAL"
			if v, err := callWho(p, nil, 5*time.Second); err != nil || v != want {
				t.Fatalf("who = %v, %v", v, err)
			}
			for _, edit := range []string{"tampered", "broken", "deleted"} {
				switch edit {
				case "tampered":
					err = os.WriteFile(path, []byte(strings.Replace(pinnedTool, "tool ORIGINAL", "tool TAMPERED", 1)), 0o644)
				case "broken":
					err = os.WriteFile(path, []byte("this is not python ("), 0o644)
				case "deleted":
					err = os.Remove(path)
				}
				if err != nil {
					t.Fatal(err)
				}
				if signed {
					// The signed helper is the loaded one too.
					if err := os.WriteFile(helper, []byte(`WHO = "helper TAMPERED"`), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				killWorker(t, p)
				if v, err := callWho(p, nil, 5*time.Second); err != nil || (signed && v != want) || (!signed && !strings.HasPrefix(v.(string), "tool ORIGINAL; ")) {
					t.Fatalf("after the file was %s: %v, %v; want the loaded version", edit, v, err)
				}
			}
		})
	}
}

// TestSignedProviderImportsOnlyPinnedFiles: a signed provider's modules
// load only when pinned with their digest; an unpinned or edited module,
// or one planted to shadow the standard library, is refused.
func TestSignedProviderImportsOnlyPinnedFiles(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "tool.py", "import textwrap\n"+pinnedTool)
	dir := filepath.Dir(path)
	helper := filepath.Join(dir, "helper.py")
	if err := os.WriteFile(helper, []byte(`WHO = "helper ORIGINAL"`), 0o644); err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{path: sum(t, path), helper: sum(t, helper)}
	load := func() (abi.Provider, error) {
		return rt.Load(context.Background(), abi.Source{Path: path, Unit: dir, Pinned: pins})
	}
	p, err := load()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v, err := callWho(p, nil, 5*time.Second); err != nil || v != "tool ORIGINAL; helper ORIGINAL" {
		t.Fatalf("who = %v, %v", v, err)
	}
	// A module the card does not pin.
	if err := os.WriteFile(filepath.Join(dir, "extra.py"), []byte(`WHO = "extra PLANTED"`), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := callWho(p, map[string]any{"extra": true}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "is not pinned by the provider's signed Adapter Card") {
		t.Fatalf("importing an unpinned module: %v, %v", v, err)
	}
	// A planted standard-library name.
	if err := os.WriteFile(filepath.Join(dir, "textwrap.py"), []byte(`raise SystemExit("PLANTED")`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "textwrap.py is not pinned") {
		t.Fatalf("load with a planted textwrap.py: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "textwrap.py")); err != nil {
		t.Fatal(err)
	}
	// An edited pinned module.
	if err := os.WriteFile(helper, []byte(`WHO = "helper TAMPERED"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "helper.py has sha256") {
		t.Fatalf("load with an edited helper.py: %v", err)
	}
	// Pins that leave out the file itself.
	if _, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: dir, Pinned: map[string]string{helper: pins[helper]}}); err == nil || !strings.Contains(err.Error(), "not among the files its signed card pins") {
		t.Fatalf("load with pins that leave out the file: %v", err)
	}
}

// TestToolKeywords: @tool's keywords reach the registration, mcp_exportable
// included (Python tools could not mark themselves exportable).
func TestToolKeywords(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "kw.py", `from aios_sdk import tool
@tool(name="kw", idempotent=True, latency_class="fast", permission_level="low", mcp_exportable=True)
def kw(params):
    return 1
`)
	p, err := rt.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d := p.Describe().Tools[0]
	if !d.MCPExportable || !d.Idempotent || d.LatencyClass != "fast" || d.PermissionLevel != "low" {
		t.Fatalf("tool def = %+v", d)
	}
}

// TestFolderPackages: a namespace package (a folder without __init__.py)
// of the tool's folder imports, signed or not; in a signed provider a
// package folder holding only compiled __init__ code (.pyc, .so) is
// refused rather than run, and a pinned module deleted after the load
// still imports in a replacement worker.
func TestFolderPackages(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "tool.py", `from aios_sdk import tool
from lib import util
from aios_sdk import provider
provider(id="org.test.ns", capabilities=[])

@tool(name="ns", parameters={"type": "object", "properties": {"opt": {"type": "boolean"}, "sleep": {"type": "boolean"}}})
def ns(params):
    if params.get("sleep"):
        import time
        time.sleep(5)
    if params.get("opt"):
        try:
            from lib import optional
            return "optional: " + optional.X
        except ImportError as e:
            return "refused: " + str(e)
    return util.V
`)
	dir := filepath.Dir(path)
	util := filepath.Join(dir, "lib", "util.py")
	if err := os.MkdirAll(filepath.Dir(util), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(util, []byte(`V = "namespace ok"`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, signed := range []bool{false, true} {
		src := abi.Source{Path: path, Unit: dir}
		if signed {
			src.Pinned = map[string]string{path: sum(t, path), util: sum(t, util)}
		}
		p, err := rt.Load(context.Background(), src)
		if err != nil {
			t.Fatalf("signed=%v: %v", signed, err)
		}
		call := func(params map[string]any) string {
			v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "ns", Params: params, Deadline: time.Now().Add(5 * time.Second)}, nil)
			if err != nil {
				t.Fatalf("signed=%v: %v", signed, err)
			}
			return v.(string)
		}
		if got := call(nil); got != "namespace ok" {
			t.Fatalf("signed=%v: %q", signed, got)
		}
		if signed {
			// Compiled code planted as a package's __init__.
			opt := filepath.Join(dir, "lib", "optional")
			if err := os.MkdirAll(opt, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(opt, "__init__.pyc"), []byte("not even bytecode"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := call(map[string]any{"opt": true}); !strings.Contains(got, "refused: ") || !strings.Contains(got, "only Python source files") {
				t.Fatalf("planted __init__.pyc: %q", got)
			}
			// A pinned module deleted after the load.
			if err := os.Remove(util); err != nil {
				t.Fatal(err)
			}
			killViaTimeout(t, p)
			if got := call(nil); got != "namespace ok" {
				t.Fatalf("after the pinned module was deleted: %q", got)
			}
		}
		p.Close()
	}
}

// killViaTimeout replaces a provider's worker: a call to a tool that
// sleeps past its deadline.
func killViaTimeout(t *testing.T, p abi.Provider) {
	t.Helper()
	_, err := p.Call(context.Background(), &abi.ToolCall{ID: "k", Tool: "ns", Params: map[string]any{"sleep": true}, Deadline: time.Now().Add(200 * time.Millisecond)}, nil)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("sleeping call: %v, want Timeout", err)
	}
}
