package discovery

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestForwardNotToNarrowerGrants: a call that looked its tool up just
// before its unit's provider id was edited (org.test.a → org.test.b) is
// handed to the new generation with the Env of the record it resolved,
// org.test.a's grants. When the config narrows the new id
// (providers.org.test.b.grants) that Env lent the new code grants its id
// does not hold (WriteSpace(*) here): the forwarding checked the trust
// level and the capabilities asked for, which are the same, not what the
// config grants each id. Such a call is refused; the retry reaches the new
// record.
func TestForwardNotToNarrowerGrants(t *testing.T) {
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	file := filepath.Join(plugins, "g.gfake")
	writeFile(t, file, `{"id": "org.test.a", "caps": ["WriteSpace(*)", "CallTool(*)"]}`)
	doc := "plugins: [" + plugins + "]\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"trust:\n  folders: {" + plugins + ": Verified}\n" +
		"providers:\n  org.test.b: {grants: [\"CallTool(*)\"]}\n" +
		"discovery:\n  dirs: []\n  desktop_dirs: []\n"
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{&grantsLoader{}}})
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
	reg := h.Registry()
	if rec := reg.Provider("org.test.a"); rec == nil || !rec.Grants.Allows(abi.MustCapability("WriteSpace(x)")) {
		t.Fatalf("org.test.a not registered with WriteSpace(*): %v", d.Errors())
	}
	v, ok := d.gens.Load("org.test.a")
	if !ok {
		t.Fatal("no generation of org.test.a")
	}
	old := v.(*generation)
	writeFile(t, file, `{"id": "org.test.b", "caps": ["WriteSpace(*)", "CallTool(*)"]}`)
	testutil.Eventually(t, "org.test.b serves in org.test.a's place", func() bool {
		return reg.Provider("org.test.b") != nil && reg.Provider("org.test.a") == nil
	})
	if rec := reg.Provider("org.test.b"); rec.Grants.Allows(abi.MustCapability("WriteSpace(x)")) {
		t.Fatalf("org.test.b holds %v, want no WriteSpace", rec.Grants.Strings())
	}
	// A call that resolved org.test.a before the swap reaches its closed
	// generation now.
	_, err = old.Call(context.Background(), &abi.ToolCall{Tool: "g-echo", Version: "1.0.0", Params: map[string]any{}}, nil)
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Unavailable {
		t.Fatalf("a call holding org.test.a's grants was served by org.test.b, which holds less: %v", err)
	}
}
