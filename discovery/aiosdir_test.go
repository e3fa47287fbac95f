package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/trust"
)

// A package's card in its aios/ folder (seed §2.1: a local adapter's card
// is at /aios/adapter.json): artifact.path is relative to the package.
func aiosCard(id, version, artifact string) string {
	art := ""
	if artifact != "" {
		art = `, "artifact": {"path": "` + artifact + `"}`
	}
	return `{"adapter": {"id": "` + id + `", "name": "In aios", "version": "` + version + `", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "aios-echo", "name": "Echo", "description": "card ` + version + `", "permission_level": "low"}]` + art + `}`
}

func TestAiosDirUnsignedCard(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		pkg := filepath.Join(dir, "pkg")
		writeFake(t, filepath.Join(pkg, "bin", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo"}})
		writeFile(t, filepath.Join(pkg, "aios", "adapter.json"), aiosCard("org.test.aioscard", "1.0.0", "bin/tool.fake"))
		// No artifact.path: the package's only artifact at its top.
		pkg2 := filepath.Join(dir, "pkg2")
		writeFake(t, filepath.Join(pkg2, "tool.fake"), fakeSpec{ID: "org.test.inner2", Version: "1.0.0", Tools: []string{"y-echo"}})
		writeFile(t, filepath.Join(pkg2, "aios", "tool.aios.yaml"), "tool: {id: org.test.aiosyaml, name: Y, version: 1.0.0}\ncapabilities:\n  - {id: y-echo, name: Y}\n")
	})
	pkg := filepath.Join(env.dir, "pkg")
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	a, ok := env.d.Adapter("org.test.aioscard")
	if !ok || a.Kind != KindCard || a.Source != pkg {
		t.Fatalf("adapter = %+v, %v", a, ok)
	}
	if v, err := env.call("aios-echo", 7); err != nil || fmt.Sprint(v["value"]) != "7" {
		t.Fatalf("call: %v %v", v, err)
	}
	if d := toolDescOf(env, "aios-echo"); d != "card 1.0.0" {
		t.Fatalf("tool from the card: %q", d)
	}
	if a, ok := env.d.Adapter("org.test.aiosyaml"); !ok || a.Kind != KindYAML {
		t.Fatalf("yaml adapter = %+v, %v", a, ok)
	}
	if _, err := env.call("y-echo", 1); err != nil {
		t.Fatal(err)
	}
}

func TestAiosDirTwoCards(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		pkg := filepath.Join(dir, "pkg")
		writeFake(t, filepath.Join(pkg, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo"}})
		writeFile(t, filepath.Join(pkg, "adapter.json"), aiosCard("org.test.top", "1.0.0", "tool.fake"))
		writeFile(t, filepath.Join(pkg, "aios", "adapter.json"), aiosCard("org.test.aioscard", "1.0.0", "tool.fake"))
		y := "tool: {id: org.test.y, name: Y, version: 1.0.0}\ncapabilities: []\n"
		writeFake(t, filepath.Join(dir, "ypkg", "tool.fake"), fakeSpec{ID: "org.test.inner2", Version: "1.0.0", Tools: []string{"y-echo"}})
		writeFile(t, filepath.Join(dir, "ypkg", "tool.aios.yaml"), y)
		writeFile(t, filepath.Join(dir, "ypkg", "aios", "tool.aios.yaml"), y)
	})
	if e := env.d.Errors()[filepath.Join(env.dir, "ypkg")]; !strings.Contains(e, "two tool.aios.yaml files (tool.aios.yaml, aios/tool.aios.yaml)") {
		t.Errorf("two yaml files: %q", e)
	}
	pkg := filepath.Join(env.dir, "pkg")
	e := env.d.Errors()[pkg]
	if !strings.Contains(e, "two cards") || !strings.Contains(e, "adapter.json, aios/adapter.json") {
		t.Fatalf("error = %q (all: %v)", e, env.d.Errors())
	}
	if _, ok := env.d.Adapter("org.test.top"); ok {
		t.Fatal("a package with two cards loaded")
	}
}

func TestAiosDirSigned(t *testing.T) {
	key, err := trust.GenerateKey("ES256", "test-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := trust.MarshalJWKS(key.PublicJWK())
	keyDir := t.TempDir()
	writeFile(t, filepath.Join(keyDir, "keys.json"), string(jwks))
	var signed []byte
	env := newEnv(t, "keys: [{trust: Verified, jwks: "+filepath.Join(keyDir, "keys.json")+"}]\n", func(dir string) {
		pkg := filepath.Join(dir, "pkg")
		writeFake(t, filepath.Join(pkg, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo"}})
		writeFile(t, filepath.Join(pkg, "lib", "data.txt"), "read by the artifact")
		card := filepath.Join(pkg, "aios", "adapter.json")
		writeFile(t, card, aiosCard("org.test.aioscard", "1.0.0", "tool.fake"))
		root, rel := trust.CardRoot(card, "tool.fake")
		if root != pkg || rel != "aios/adapter.json" {
			t.Fatalf("CardRoot = %q %q", root, rel)
		}
		pinned, ok, err := trust.PinArtifact([]byte(aiosCard("org.test.aioscard", "1.0.0", "tool.fake")), root, rel)
		if err != nil || !ok {
			t.Fatal(err)
		}
		if signed, err = trust.SignCard(pinned, key); err != nil {
			t.Fatal(err)
		}
		writeFile(t, card, string(signed))
	})
	pkg := filepath.Join(env.dir, "pkg")
	a, ok := env.d.Adapter("org.test.aioscard")
	if !ok || !a.Signed || a.Trust != abi.Verified {
		t.Fatalf("adapter = %+v, %v (errors %v)", a, ok, env.d.Errors())
	}
	var src abi.Source
	env.load.mu.Lock()
	for _, p := range env.load.made {
		if p.spec.ID == "org.test.inner" {
			src = p.src
		}
	}
	env.load.mu.Unlock()
	if src.Unit != pkg || len(src.Pinned) != 2 || src.Pinned[filepath.Join(pkg, "lib", "data.txt")] == "" {
		t.Fatalf("loader source: unit %q, pinned %v", src.Unit, src.Pinned)
	}
	// A tampered artifact is refused; the signed version keeps serving.
	writeFake(t, filepath.Join(pkg, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "6.6.6", Tools: []string{"aios-echo"}})
	testutil.Eventually(t, "tampered artifact refused", func() bool {
		return strings.Contains(env.d.Errors()[pkg], "aios/adapter.json: refused") && strings.Contains(env.d.Errors()[pkg], "pins")
	})
	if v, err := env.call("aios-echo", 1); err != nil || v["version"] != "1.0.0" {
		t.Fatalf("after the swap: %v %v", v, err)
	}
}

func TestAiosDirHotReload(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo"}})
		writeFake(t, filepath.Join(dir, "bare", "tool.fake"), fakeSpec{ID: "org.test.bare", Version: "1.0.0", Tools: []string{"bare-echo"}})
		writeFile(t, filepath.Join(dir, "pkg", "aios", "adapter.json"), aiosCard("org.test.aioscard", "1.0.0", "tool.fake"))
	})
	pkg := filepath.Join(env.dir, "pkg")
	desc := func() string { return toolDescOf(env, "aios-echo") }
	if desc() != "card 1.0.0" {
		t.Fatalf("description %q", desc())
	}
	// An edit of the card in aios/ reloads the unit.
	writeFile(t, filepath.Join(pkg, "aios", "adapter.json"), aiosCard("org.test.aioscard", "1.1.0", "tool.fake"))
	testutil.Eventually(t, "edited card reloaded", func() bool { return desc() == "card 1.1.0" })
	// Deleting it leaves the bare artifact.
	if err := os.Remove(filepath.Join(pkg, "aios", "adapter.json")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "card gone", func() bool {
		a, ok := env.d.Adapter("org.test.inner")
		return ok && a.Kind == KindArtifact
	})
	// Creating one (aios/ made after the start) binds the artifact again.
	bare := filepath.Join(env.dir, "bare")
	if err := os.Mkdir(filepath.Join(bare, "aios"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "aios folder noticed", func() bool { return len(env.d.Errors()) == 0 })
	writeFile(t, filepath.Join(bare, "aios", "adapter.json"), strings.Replace(aiosCard("org.test.barecard", "2.0.0", "tool.fake"), "aios-echo", "bare-echo", 1))
	testutil.Eventually(t, "created card loaded", func() bool {
		a, ok := env.d.Adapter("org.test.barecard")
		return ok && a.Kind == KindCard && a.Source == bare
	})
	// Edited again, in the folder watched since it was created.
	writeFile(t, filepath.Join(bare, "aios", "adapter.json"), strings.Replace(aiosCard("org.test.barecard", "2.1.0", "tool.fake"), "aios-echo", "bare-echo", 1))
	testutil.Eventually(t, "second edit loaded", func() bool {
		return toolDescOf(env, "bare-echo") == "card 2.1.0"
	})
}

func toolDescOf(env *testEnv, name string) string {
	e, err := env.h.Registry().Resolve(name, "")
	if err != nil {
		return ""
	}
	return e.Def.Description
}
