package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestCallsDuringReloadStress: 200 goroutines call a JS, a Python
// and a WASM tool while the plugin folder changes under them (the JS and
// Python files rewritten with a new generation every 100 ms, the WASM file
// removed and put back). A call of a tool whose file was rewritten at the
// same version and schema is forwarded, never failed; every answer is the
// asking call's own (its v) from its own tool; a removed tool is NotFound
// or Unavailable, nothing else; every call has exactly one audit record;
// when all calls have ended no pool has a busy instance or worker, and
// once the host and runtimes close, no goroutine or worker process is left.
// A quarter of the callers cancel their calls at a random point: those
// answered Cancelled are recorded Cancelled, and they leave no slot,
// instance or worker busy.
func TestCallsDuringReloadStress(t *testing.T) {
	root := testutil.RepoRoot(t)
	coreBin, err := os.ReadFile(filepath.Join(root, "build", "wasm", "c-echo.wasm"))
	if err != nil {
		t.Skipf("samples not built: %v", err)
	}
	baseline := runtimeGoroutines()
	dir := t.TempDir()
	plugins, data := filepath.Join(dir, "plugins"), filepath.Join(dir, "data")
	_ = os.MkdirAll(plugins, 0o755)
	cfg, err := config.Parse([]byte("plugins: ["+plugins+"]\ndata: "+data+"\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n  debounce: 20ms\n"+
		// Calls as fast as they go: without -race they pass the
		// default global rate (10 000/s) and were refused RateLimited.
		"rate_limits: {global: {per_second: 1000000000, burst: 1000000000}}\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jsRT := js.New(js.Options{})
	pyCfg := python.DefaultConfig()
	pyCfg.PoolSize = 2
	pyRT, err := python.New(pyCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	core, err := wasm.NewEngineLoader("", wasm.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	aw, err := audit.Open(cfg.AuditPath(), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Audit: aw, Loaders: append(jsRT.Loaders(), pyRT, core)})
	if err != nil {
		t.Fatal(err)
	}
	jsSrc := func(gen int) []byte {
		return []byte(fmt.Sprintf(`aios.provider({id: 'org.probe.stressjs', name: 'stress js', version: '1.0.0'});
aios.registerTool({name: 'jsgen', parameters: {v: {type: 'integer'}}}, (params) => ({tool: 'jsgen', gen: %d, v: params.v}));
`, gen))
	}
	pySrc := func(gen int) []byte {
		return []byte(fmt.Sprintf(`from aios_sdk import Agent, tool

@Agent(id="org.probe.stresspy", name="stress py", version="1.0.0")
class Stress:
    @tool(name="pygen", parameters={"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]})
    def pygen(self, params):
        return {"tool": "pygen", "gen": %d, "v": params["v"]}
`, gen))
	}
	put := func(name string, b []byte) {
		tmp := filepath.Join(dir, name)
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			t.Error(err)
			return
		}
		if err := os.Rename(tmp, filepath.Join(plugins, name)); err != nil {
			t.Error(err)
		}
	}
	put("stress.js", jsSrc(0))
	put("stress.py", pySrc(0))
	put("echo.wasm", coreBin)
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatalf("load errors: %v", errs)
	}

	var calls, bad atomic.Int64
	var cancelled sync.Map // call id → tool, of the calls answered Cancelled
	var lastGen atomic.Int64
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for gen := 1; ; gen++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			put("stress.js", jsSrc(gen))
			put("stress.py", pySrc(gen))
			lastGen.Store(int64(gen))
			switch gen % 4 {
			case 1:
				_ = os.Remove(filepath.Join(plugins, "echo.wasm"))
			case 3:
				put("echo.wasm", withCustomSection(coreBin, strconv.Itoa(gen)))
			}
		}
	}()
	fail := func(format string, args ...any) {
		if bad.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	var callers sync.WaitGroup
	end := time.Now().Add(3 * time.Second)
	for g := range 200 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			tool := []string{"jsgen", "pygen", "c-echo"}[g%3]
			for i := 0; time.Now().Before(end); i++ {
				v := g*100000 + i
				params := map[string]any{"v": v}
				if tool == "c-echo" {
					params = map[string]any{"value": v}
				}
				calls.Add(1)
				ctx := context.Background()
				id := fmt.Sprintf("stress-%d-%d", g, i)
				storm := g%4 == 3 // these callers cancel at a random point
				if storm {
					c, cancel := context.WithCancel(ctx)
					time.AfterFunc(time.Duration(rand.Int64N(int64(3*time.Millisecond))), cancel)
					ctx = c
				}
				res, err := h.Call(ctx, &abi.ToolCall{ID: id, Caller: "cli", Tool: tool, Params: params, Deadline: time.Now().Add(60 * time.Second)})
				if abi.CodeOf(err) == abi.Cancelled && storm {
					cancelled.Store(id, tool)
					continue
				}
				if tool == "c-echo" {
					if err != nil {
						if c := abi.CodeOf(err); c != abi.NotFound && c != abi.Unavailable {
							fail("c-echo while its file comes and goes: %v", err)
						}
						continue
					}
					if m, _ := res.(map[string]any); m == nil || fmt.Sprint(m["value"]) != strconv.Itoa(v) {
						fail("c-echo of %d answered %v", v, res)
					}
					continue
				}
				if err != nil {
					fail("%s rewritten at its version while called: %v", tool, err)
					continue
				}
				m, _ := res.(map[string]any)
				if m == nil || m["tool"] != tool || fmt.Sprint(m["v"]) != strconv.Itoa(v) {
					fail("%s of v=%d answered %v", tool, v, res)
				}
			}
		}()
	}
	callers.Wait()
	close(stop)
	writer.Wait()
	t.Logf("%d calls, %d generations", calls.Load(), lastGen.Load())

	// The last generation serves once its reload is in.
	want := lastGen.Load()
	testutil.Eventually(t, fmt.Sprintf("the last generation %d serves", want), func() bool {
		calls.Add(2)
		r1, e1 := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "jsgen", Params: map[string]any{"v": 1}})
		r2, e2 := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "pygen", Params: map[string]any{"v": 1}})
		return e1 == nil && e2 == nil && fmt.Sprint(r1.(map[string]any)["gen"]) == strconv.FormatInt(want, 10) &&
			fmt.Sprint(r2.(map[string]any)["gen"]) == strconv.FormatInt(want, 10)
	})

	for _, rec := range h.Registry().Providers() {
		if ps, ok := host.PoolStatsOf(rec.Impl); ok {
			if _, busy := ps.PoolStats(); busy != 0 {
				t.Errorf("provider %s: %d busy after every call ended", rec.Info.ID, busy)
			}
		}
	}
	if err := d.Close(); err != nil {
		t.Error(err)
	}
	if err := h.Close(); err != nil {
		t.Error(err)
	}
	f, err := os.Open(cfg.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	n, err := audit.Verify(f)
	f.Close()
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	if int64(n) != calls.Load() {
		t.Errorf("%d audit records for %d calls", n, calls.Load())
	}
	// Each call answered Cancelled has its one record saying Cancelled.
	b, err := os.ReadFile(cfg.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r audit.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		outcomes[r.CallID] = r.Outcome
	}
	nc := 0
	cancelled.Range(func(k, v any) bool {
		nc++
		if o := outcomes[k.(string)]; o != string(abi.Cancelled) {
			t.Errorf("call %s of %s answered Cancelled is recorded %q", k, v, o)
		}
		return true
	})
	t.Logf("%d calls cancelled by their callers", nc)
	pyRT.Close()
	if err := errors.Join(jsRT.Close(), core.(interface{ Close() error }).Close()); err != nil {
		t.Error(err)
	}
	if got := testutil.SettleGoroutines(baseline+3, 30*time.Second); got > baseline+3 {
		t.Errorf("%d goroutines after everything closed, %d before\n%s", got, baseline, testutil.GoroutineDump())
	}
	if live, _ := testutil.Children(); len(live) > 0 {
		t.Errorf("%d child processes after the runtimes closed", len(live))
	}
}

func runtimeGoroutines() int { return testutil.TakeResources().Goroutines }
