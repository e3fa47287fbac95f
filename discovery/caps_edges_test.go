package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

type edgeProv struct{ calls int }

func (p *edgeProv) Describe() *abi.ToolRegister {
	return &abi.ToolRegister{Provider: abi.ProviderInfo{ID: "org.probe.p"}}
}
func (p *edgeProv) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) {
	p.calls++
	return "ok", nil
}
func (p *edgeProv) Close() error { return nil }

// A call that looked its tool up just before a hot swap is handed to the
// new generation, with the Env (the grants) of the record it resolved. When
// the new code runs at a lower trust level (a signed plugin replaced by an
// unsigned one) that Env would lend it the old level's grants: such a call
// is refused instead (the caller's retry reaches the new record).
func TestForwardNotToLowerTrust(t *testing.T) {
	for _, tc := range []struct {
		old, new abi.TrustLevel
		forward  bool
	}{{abi.Verified, abi.Untrusted, false}, {abi.Community, abi.Community, true}, {abi.Untrusted, abi.Verified, true}} {
		var cur *generation
		current := func() *generation { return cur }
		oldP, newP := &edgeProv{}, &edgeProv{}
		g1 := newGeneration(newShared(oldP, nil), current)
		g1.trust = tc.old
		g2 := newGeneration(newShared(newP, nil), current)
		g2.trust = tc.new
		cur = g2
		_ = g1.Close()
		_, err := g1.Call(context.Background(), &abi.ToolCall{Tool: "t"}, nil)
		if tc.forward {
			if err != nil || newP.calls != 1 {
				t.Errorf("%v → %v: not forwarded: %v", tc.old, tc.new, err)
			}
			continue
		}
		var te *abi.ToolError
		if newP.calls != 0 || !errors.As(err, &te) || te.Code != abi.Unavailable {
			t.Errorf("%v → %v: forwarded to the less trusted generation (calls %d, err %v)", tc.old, tc.new, newP.calls, err)
		}
	}
}

// providers.<id>.disabled refuses the provider; a unit whose card names
// that id is not even loaded (its code does not run), and discovery says
// why. The host refused it only after the runtime had started it.
func TestDisabledCardNotLoaded(t *testing.T) {
	env := newEnvTop(t, func(string) string { return "providers:\n  org.test.bcard: {disabled: true}\n" }, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "b", "tool.fake"), fakeSpec{ID: "org.test.b-inner", Version: "1.0.0", Tools: []string{"b-echo"}})
		writeFile(t, filepath.Join(dir, "b", "adapter.json"), cardB)
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}})
	}, nil)
	if n := env.load.loads.Load(); n != 1 {
		t.Errorf("%d loads, want 1 (the disabled card's artifact must not be loaded)", n)
	}
	found := false
	for k, v := range env.d.Errors() {
		if strings.Contains(k, "b") && strings.Contains(v, "disabled") {
			found = true
		}
	}
	if !found {
		t.Errorf("no error says the card's provider is disabled: %v", env.d.Errors())
	}
	if _, err := env.call("b-echo", 1); abi.CodeOf(err) != abi.NotFound {
		t.Errorf("b-echo: %v", err)
	}
}

// grantsLoader loads ".gfake" files ({"id", "caps"}) and records the
// grants a runtime configures its sandbox with (abi.Source.FinalGrants,
// as the Python runtime's network and the WASM runtime's clocks do).
type grantsLoader struct{ seen sync.Map } // path → abi.Grants

func (*grantsLoader) Runtime() string      { return "gfake" }
func (*grantsLoader) Extensions() []string { return []string{".gfake"} }
func (l *grantsLoader) Load(_ context.Context, src abi.Source) (abi.Provider, error) {
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, err
	}
	var s struct {
		ID   string   `json:"id"`
		Caps []string `json:"caps"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	asked, err := abi.ParseGrants(s.Caps)
	if err != nil {
		return nil, err
	}
	_, g := src.FinalGrants(s.ID, asked)
	l.seen.Store(src.Path, g)
	return &fakeProvider{reg: &abi.ToolRegister{Format: abi.FormatVersion,
		Provider: abi.ProviderInfo{ID: s.ID, Version: "1.0.0", Runtime: "gfake", Capabilities: s.Caps},
		Tools:    []abi.ToolDef{{Name: "g-echo", Version: "1.0.0", Parameters: map[string]any{"type": "object"}}}}}, nil
}

// A card renames its artifact's provider (adapter.id) and may replace what
// it asks for (requirements.capabilities); the host records those. The
// grants a runtime configured its sandbox with were computed for the id
// and capabilities the code itself declared: providers.<card id>.grants
// did not narrow them, and a card asking for no Network left the code its
// own Network(*) (a Python worker with the whole network, which neither
// the card, the registry nor the config showed).
func TestSandboxGrantsFollowTheCard(t *testing.T) {
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	writeFile(t, filepath.Join(plugins, "g", "tool.gfake"), `{"id": "org.test.self", "caps": ["Network(*)", "CallTool(*)", "ReadSpace(*)"]}`)
	writeFile(t, filepath.Join(plugins, "g", "adapter.json"), `{
  "adapter": {"id": "org.test.card", "name": "G", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "requirements": {"capabilities": ["CallTool(*)", "ReadSpace(*)"]},
  "skills": [{"id": "g-echo", "name": "g", "permission_level": "low", "input_schema": {"type": "object"}}]}`)
	doc := "plugins: [" + plugins + "]\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"trust:\n  folders: {" + plugins + ": Verified}\n" +
		"providers:\n  org.test.card: {grants: [\"CallTool(*)\", \"Network(*)\"]}\n" +
		"discovery:\n  dirs: []\n  desktop_dirs: []\n"
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gl := &grantsLoader{}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{gl}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := h.Registry().Provider("org.test.card")
	if rec == nil {
		t.Fatalf("card provider not registered: %v", d.Errors())
	}
	v, ok := gl.seen.Load(filepath.Join(plugins, "g", "tool.gfake"))
	if !ok {
		t.Fatal("artifact not loaded")
	}
	sandbox := v.(abi.Grants)
	if !slices.Equal(sandbox.Strings(), rec.Grants.Strings()) {
		t.Errorf("the runtime configured its sandbox with %v; the host records %v", sandbox.Strings(), rec.Grants.Strings())
	}
}
