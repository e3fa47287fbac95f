package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
)

// capSpec is a provider file of the probe's loader (".capfake"): one
// tool whose definition (version, required capabilities, parameters) the
// file sets, answering with the file's mark.
type capSpec struct {
	ID       string         `json:"id"`
	Tool     string         `json:"tool"`
	Version  string         `json:"version"`
	Caps     []string       `json:"caps,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	Mark     string         `json:"mark"`
	Describe string         `json:"describe,omitempty"`
	Keeps    bool           `json:"keeps,omitempty"`   // claims abi.DeadlineKeeper
	HangMS   int            `json:"hang_ms,omitempty"` // ignores ctx this long
}

type capLoader struct{}

func (capLoader) Runtime() string      { return "capfake" }
func (capLoader) Extensions() []string { return []string{".capfake"} }
func (capLoader) Load(_ context.Context, src abi.Source) (abi.Provider, error) {
	b, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, err
	}
	var s capSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	params := s.Params
	if params == nil {
		params = map[string]any{"type": "object"}
	}
	reg := &abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: s.ID, Version: s.Version, Runtime: "capfake"},
		Tools: []abi.ToolDef{{Name: s.Tool, Version: s.Version, Description: "probe " + s.Describe, CapabilityRequired: s.Caps, Parameters: params}}}
	if s.Keeps {
		return &keeperProvider{capProvider{reg: reg, mark: s.Mark, hang: s.HangMS}}, nil
	}
	return &capProvider{reg: reg, mark: s.Mark, hang: s.HangMS}, nil
}

type keeperProvider struct{ capProvider }

func (*keeperProvider) KeepsDeadlines() bool { return true }

// PoolStats: a runtime's pool, which /metrics reads through the wrappers
// (host.PoolStatsOf; TestGenerationKeepsDeadlines).
func (*keeperProvider) PoolStats() (idle, busy int) { return 2, 1 }

type capProvider struct {
	reg  *abi.ToolRegister
	mark string
	hang int
}

func (p *capProvider) Describe() *abi.ToolRegister { return p.reg }
func (p *capProvider) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) {
	time.Sleep(time.Duration(p.hang) * time.Millisecond)
	return map[string]any{"mark": p.mark}, nil
}
func (p *capProvider) Close() error { return nil }

func writeCap(t *testing.T, path string, s capSpec) {
	t.Helper()
	b, _ := json.Marshal(s)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func newCapEnv(t *testing.T) (*host.Host, string) {
	t.Helper()
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	h, _ := startCapDiscovery(t, dir, "plugins: ["+plugins+"]\n")
	return h, plugins
}

// startCapDiscovery starts a host with capLoader and discovery on the
// config head (plugins, trust…) plus a data folder in dir, no audit and
// a short debounce; both close when the test ends.
func startCapDiscovery(t *testing.T, dir, head string) (*host.Host, *Discovery) {
	t.Helper()
	cfg, err := config.Parse([]byte(head+"data: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n  debounce: 5ms\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{capLoader{}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Close()
		_ = h.Close()
	})
	return h, d
}

// A call that looked its tool up just before a hot reload reaches the old
// generation, which forwards it to the new one. The pipeline checked that
// call against the old definition (capabilities, permission, parameters):
// when the reload changed the definition, the new code must not run it
// unchecked — here the new version requires ReadSpace(secret), which the
// caller was never asked for.
func TestForwardedCallKeepsItsChecks(t *testing.T) {
	h, plugins := newCapEnv(t)
	path := filepath.Join(plugins, "p.capfake")
	writeCap(t, path, capSpec{ID: "org.probe.cap", Tool: "t", Version: "1.0.0", Mark: "v1"})
	testutil.Eventually(t, "v1 loaded", func() bool { _, err := h.Registry().Resolve("t", ""); return err == nil })
	old, _ := h.Registry().Resolve("t", "")

	// The reload adds a required capability, same version (a developer's
	// edit in place).
	writeCap(t, path, capSpec{ID: "org.probe.cap", Tool: "t", Version: "1.0.0", Caps: []string{"ReadSpace(secret)"}, Mark: "v2"})
	testutil.Eventually(t, "v2 loaded", func() bool {
		e, err := h.Registry().Resolve("t", "")
		return err == nil && len(e.Def.CapabilityRequired) == 1
	})
	// The call that resolved v1 before the swap, checked against v1's
	// definition, arrives now at v1's generation.
	res, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, nil)
	if err == nil {
		t.Fatalf("a call checked against the old definition was served by the new code, which requires more: %v", res)
	}
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("want Unavailable (retry), got %v", err)
	}
	t.Log(err)
}

// When the reload changed only the code (the tool's definition is the same),
// the forwarded call is served by the new version: no call fails because of a
// reload.
func TestForwardedCallSameDefinition(t *testing.T) {
	h, plugins := newCapEnv(t)
	path := filepath.Join(plugins, "p.capfake")
	writeCap(t, path, capSpec{ID: "org.probe.cap", Tool: "t", Version: "1.0.0", Mark: "v1"})
	testutil.Eventually(t, "v1 loaded", func() bool { _, err := h.Registry().Resolve("t", ""); return err == nil })
	old, _ := h.Registry().Resolve("t", "")
	writeCap(t, path, capSpec{ID: "org.probe.cap", Tool: "t", Version: "1.0.0", Mark: "v2"})
	testutil.Eventually(t, "v2 loaded", func() bool {
		v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Params: map[string]any{}})
		return err == nil && fmt.Sprint(v.(map[string]any)["mark"]) == "v2"
	})
	res, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, nil)
	if err != nil || res.(map[string]any)["mark"] != "v2" {
		t.Fatalf("forwarded call: %v, %v", res, err)
	}
}

// A provider id edited in place: a call that looked its tool up under the
// old id just before the swap reaches the old id's generation after the
// host closed it. docs/discovery.md: "no call fails because of a reload"
// and "a call finds either the old id's tools or the new one's"; the call
// was answered Unavailable "provider … was unloaded".
func TestForwardedAcrossIDChange(t *testing.T) {
	h, plugins := newCapEnv(t)
	path := filepath.Join(plugins, "p.capfake")
	writeCap(t, path, capSpec{ID: "org.probe.old", Tool: "t", Version: "1.0.0", Mark: "old"})
	testutil.Eventually(t, "old id loaded", func() bool { _, err := h.Registry().Resolve("t", ""); return err == nil })
	old, _ := h.Registry().Resolve("t", "")
	writeCap(t, path, capSpec{ID: "org.probe.new", Tool: "t", Version: "1.0.0", Mark: "new"})
	testutil.Eventually(t, "new id serves", func() bool {
		e, err := h.Registry().Resolve("t", "")
		return err == nil && e.Provider.Info.ID == "org.probe.new"
	})
	res, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, nil)
	if err != nil || res.(map[string]any)["mark"] != "new" {
		t.Fatalf("a call that reached the old id's generation after the id change: %v, %v", res, err)
	}
}

// A discovered provider whose runtime interrupts its guests at the deadline
// (abi.DeadlineKeeper: wasm, components, js, python) kept that through its
// generation wrapper (and an Adapter Card's binding): the host ran every
// call of every plugin-folder provider under its watcher goroutine and
// timer (host.callWatched: twice the allocations of a wasm echo).
func TestGenerationKeepsDeadlines(t *testing.T) {
	h, plugins := newCapEnv(t)
	writeCap(t, filepath.Join(plugins, "k.capfake"), capSpec{ID: "org.probe.k", Tool: "k", Version: "1.0.0", Keeps: true})
	writeCap(t, filepath.Join(plugins, "n.capfake"), capSpec{ID: "org.probe.n", Tool: "n", Version: "1.0.0"})
	testutil.Eventually(t, "loaded", func() bool {
		_, e1 := h.Registry().Resolve("k", "")
		_, e2 := h.Registry().Resolve("n", "")
		return e1 == nil && e2 == nil
	})
	keeps := func(tool string) bool {
		e, _ := h.Registry().Resolve(tool, "")
		k, ok := e.Provider.Impl.(abi.DeadlineKeeper)
		return ok && k.KeepsDeadlines()
	}
	if !keeps("k") || keeps("n") {
		t.Fatalf("generation KeepsDeadlines: keeper %v, other %v; want true, false", keeps("k"), keeps("n"))
	}
	b, err := BindCard(&keeperProvider{capProvider{reg: &abi.ToolRegister{Provider: abi.ProviderInfo{ID: "x"}}}},
		&Card{Adapter: AdapterInfo{ID: "x", Name: "x", Version: "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := b.(abi.DeadlineKeeper); !ok || !k.KeepsDeadlines() {
		t.Fatal("a card-bound deadline keeper does not keep deadlines")
	}
	// The runtime's pool is read through both wrappers (the
	// aios_provider_pool metric was empty for every discovered provider).
	pools := func(p abi.Provider) bool {
		ps, ok := host.PoolStatsOf(p)
		if !ok {
			return false
		}
		idle, busy := ps.PoolStats()
		return idle == 2 && busy == 1
	}
	ek, _ := h.Registry().Resolve("k", "")
	en, _ := h.Registry().Resolve("n", "")
	if !pools(ek.Provider.Impl) || pools(en.Provider.Impl) || !pools(b) {
		t.Fatalf("PoolStats through generation (keeper %v, other %v) and card binding (%v): want true, false, true",
			pools(ek.Provider.Impl), pools(en.Provider.Impl), pools(b))
	}
}

// A call forwarded from a keeper's generation (the host does not watch it)
// to a reloaded version that does not keep deadlines and hangs is still
// abandoned shortly after its deadline.
func TestForwardedToNonKeeperIsWatched(t *testing.T) {
	h, plugins := newCapEnv(t)
	path := filepath.Join(plugins, "p.capfake")
	writeCap(t, path, capSpec{ID: "org.probe.w", Tool: "w", Version: "1.0.0", Keeps: true})
	testutil.Eventually(t, "v1", func() bool { _, err := h.Registry().Resolve("w", ""); return err == nil })
	old, _ := h.Registry().Resolve("w", "")
	writeCap(t, path, capSpec{ID: "org.probe.w", Tool: "w", Version: "1.0.0", HangMS: 4000, Mark: "v2"})
	testutil.Eventually(t, "v2", func() bool {
		e, err := h.Registry().Resolve("w", "")
		return err == nil && e != old && e.Provider.Impl != old.Provider.Impl
	})
	start := time.Now()
	_, err := old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "w", Version: "1.0.0",
		Params: map[string]any{}, Deadline: start.Add(100 * time.Millisecond)}, nil)
	if took := time.Since(start); abi.CodeOf(err) != abi.Timeout || took > 2500*time.Millisecond {
		t.Fatalf("forwarded hanging call: %v after %v; want Timeout within the deadline + 1 s", err, took)
	}
}

// A provider id served by a trusted file and shadowed by a less trusted
// one: when the trusted file goes, the less trusted one takes over. A call
// that resolved the trusted version just before (its frame holds the
// trusted provider's grants for its host calls) was forwarded to the less
// trusted code, which ran it with those grants.
func TestForwardedCallKeepsTrust(t *testing.T) {
	dir := t.TempDir()
	high, low := filepath.Join(dir, "high"), filepath.Join(dir, "low")
	for _, d := range []string{high, low} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h, d := startCapDiscovery(t, dir, "plugins: ["+high+", "+low+"]\ntrust: {folders: {"+high+": Community}}\n")
	writeCap(t, filepath.Join(high, "a.capfake"), capSpec{ID: "org.probe.tr", Tool: "t", Version: "1.0.0", Mark: "community"})
	writeCap(t, filepath.Join(low, "b.capfake"), capSpec{ID: "org.probe.tr", Tool: "t", Version: "1.0.0", Mark: "untrusted"})
	testutil.Eventually(t, "community serves", func() bool {
		e, err := h.Registry().Resolve("t", "")
		return err == nil && e.Provider.Trust == abi.Community && len(d.Errors()) == 0
	})
	time.Sleep(100 * time.Millisecond) // the shadowed one loaded too
	old, _ := h.Registry().Resolve("t", "")
	if err := os.Remove(filepath.Join(high, "a.capfake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "untrusted takes over", func() bool {
		e, err := h.Registry().Resolve("t", "")
		return err == nil && e.Provider.Trust == abi.Untrusted
	})
	// The host closes the old generation just after the registry swap:
	// until then a call reaching it is served by the old (Community) code,
	// as it should be.
	var res any
	var err error
	testutil.Eventually(t, "old generation closed", func() bool {
		res, err = old.Provider.Impl.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "t", Version: "1.0.0", Params: map[string]any{}}, nil)
		m, _ := res.(map[string]any)
		return err != nil || m["mark"] != "community"
	})
	if err == nil {
		t.Fatalf("a call resolved at Community trust ran in the Untrusted code: %v", res)
	}
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("want Unavailable, got %v", err)
	}
}
