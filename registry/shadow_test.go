package registry

import (
	"slices"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// served lists "name@version" of provider id's served tools.
func served(r *Registry, id string) []string {
	var out []string
	for _, e := range r.ProviderTools(id) {
		out = append(out, e.Def.Name+"@"+e.ver)
	}
	return out
}

func servedBy(t *testing.T, r *Registry, name string) string {
	t.Helper()
	e, err := r.Resolve(name, "")
	if err != nil {
		return ""
	}
	return e.Provider.Info.ID
}

// A more trusted provider registering a tool version another serves
// displaces that version only: the holder stays registered with its other
// tools, and its version is served again, in the same snapshot, when the
// displacer withdraws it or goes.
func TestDisplacedVersionRestored(t *testing.T) {
	r := New()
	events, cancel := r.Subscribe(16)
	defer cancel()
	if err := r.Register(trusted("org.u", abi.Untrusted), []abi.ToolDef{tool("hello", "1.0.0"), tool("only", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	<-events
	rep, err := r.Apply(trusted("org.v", abi.Verified), []abi.ToolDef{tool("hello", "1.0.0")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Displaced) != 1 || rep.Displaced[0].Provider != "org.u" || rep.Displaced[0].By != "org.v" || rep.Displaced[0].Tool != "hello" {
		t.Fatalf("report %+v", rep)
	}
	if got := servedBy(t, r, "hello"); got != "org.v" {
		t.Fatalf("hello served by %q", got)
	}
	if got := served(r, "org.u"); !slices.Equal(got, []string{"only@1.0.0"}) || r.Provider("org.u") == nil {
		t.Fatalf("the displaced provider serves %v", got)
	}
	if sh := r.Shadowed("org.u"); len(sh) != 1 || sh[0].Def.Name != "hello" {
		t.Fatalf("shadowed %v", sh)
	}
	// Events: the newcomer's (added), then the holder's (hello removed).
	ev1, ev2 := <-events, <-events
	if ev1.Provider.ID != "org.v" || ev1.Provider.Action != "added" || ev2.Provider.ID != "org.u" || ev2.Provider.Action != "updated" ||
		len(ev2.Removed) != 1 || ev2.Removed[0].Name != "hello" {
		t.Fatalf("events %+v %+v", ev1, ev2)
	}

	// The displacer withdraws the version in a hot reload: the holder's is
	// served in the same snapshot.
	if err := r.Replace(trusted("org.v", abi.Verified), []abi.ToolDef{tool("other", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(t, r, "hello"); got != "org.u" {
		t.Fatalf("after the withdrawal hello is served by %q", got)
	}
	<-events
	if ev := <-events; ev.Provider.ID != "org.u" || len(ev.Added) != 1 || ev.Added[0].Name != "hello" {
		t.Fatalf("restore event %+v", ev)
	}
	// Displaced again, then the displacer goes.
	if err := r.Replace(trusted("org.v", abi.Verified), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	rep, err = r.Remove("org.v")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored) != 1 || rep.Restored[0].Provider != "org.u" {
		t.Fatalf("remove report %+v", rep)
	}
	if got := servedBy(t, r, "hello"); got != "org.u" || r.Shadowed("org.u") != nil {
		t.Fatalf("after the displacer went hello is served by %q", got)
	}
}

// Which provider serves a contested version does not depend on the order
// they registered in: a less trusted provider registering a version a more
// trusted one serves is registered with it left out, and it is served if
// the other goes.
func TestLessTrustedLeftOut(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.v", abi.Verified), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Apply(trusted("org.u", abi.Untrusted), []abi.ToolDef{tool("hello", "1.0.0"), tool("only", "1.0.0")}, Options{})
	if err != nil {
		t.Fatalf("the less trusted provider was refused: %v", err)
	}
	if len(rep.LeftOut) != 1 || rep.LeftOut[0].Tool != "hello" || rep.LeftOut[0].By != "org.v" {
		t.Fatalf("report %+v", rep)
	}
	if servedBy(t, r, "hello") != "org.v" || !slices.Equal(served(r, "org.u"), []string{"only@1.0.0"}) {
		t.Fatalf("hello by %s; org.u serves %v", servedBy(t, r, "hello"), served(r, "org.u"))
	}
	if err := r.Unregister("org.v"); err != nil {
		t.Fatal(err)
	}
	if servedBy(t, r, "hello") != "org.u" {
		t.Fatal("the left-out version was not served once the holder went")
	}
}

// At the same trust a duplicate version is refused (or, with Partial,
// left out and served when the holder goes).
func TestPartialLeftOutRestored(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.a"), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, r.Register(prov("org.b"), []abi.ToolDef{tool("hello", "1.0.0"), tool("b", "1.0.0")}), abi.Conflict, "org.a", "org.b")
	rep, err := r.Apply(prov("org.b"), []abi.ToolDef{tool("hello", "1.0.0"), tool("b", "1.0.0")}, Options{Partial: true})
	if err != nil || len(rep.LeftOut) != 1 {
		t.Fatalf("partial: %+v %v", rep, err)
	}
	if !slices.Equal(served(r, "org.b"), []string{"b@1.0.0"}) {
		t.Fatalf("org.b serves %v", served(r, "org.b"))
	}
	if err := r.Unregister("org.a"); err != nil {
		t.Fatal(err)
	}
	if servedBy(t, r, "hello") != "org.b" {
		t.Fatal("the left-out version was not served once the holder went")
	}
}

// A registration refused for one tool displaces nothing for another: all
// or nothing.
func TestRefusedRegistrationDisplacesNothing(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.u", abi.Untrusted), []abi.ToolDef{tool("alpha", "1.0.0"), tool("low-only", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.w", abi.Verified), []abi.ToolDef{tool("beta", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(trusted("org.n", abi.Verified), []abi.ToolDef{tool("alpha", "1.0.0"), tool("beta", "1.0.0")})
	wantCode(t, err, abi.Conflict, "beta", "org.w")
	if servedBy(t, r, "alpha") != "org.u" || servedBy(t, r, "low-only") != "org.u" || r.Shadowed("org.u") != nil {
		t.Fatalf("the refused registration changed org.u: serves %v", served(r, "org.u"))
	}
}

// The most trusted of several shadowed holders is served when the
// displacer goes.
func TestRestoreMostTrustedFirst(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.s", abi.System), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*ProviderRecord{trusted("org.a-untrusted", abi.Untrusted), trusted("org.z-community", abi.Community)} {
		if err := r.Register(p, []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Unregister("org.s"); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(t, r, "hello"); got != "org.z-community" {
		t.Fatalf("hello served by %q, want the Community provider", got)
	}
	if sh := r.Shadowed("org.a-untrusted"); len(sh) != 1 {
		t.Fatalf("the Untrusted one should stay shadowed: %v", sh)
	}
}

// Drop removes a provider in the same snapshot as the registration: a
// provider whose id changed takes the old id's tool versions without a
// moment in which neither serves them, and without a conflict.
func TestApplyDrop(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.old"), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	events, cancel := r.Subscribe(8)
	defer cancel()
	wantCode(t, r.Register(prov("org.new"), []abi.ToolDef{tool("hello", "1.0.0")}), abi.Conflict, "org.old")
	if _, err := r.Apply(prov("org.new"), []abi.ToolDef{tool("hello", "1.0.0")}, Options{Drop: "org.old"}); err != nil {
		t.Fatal(err)
	}
	if servedBy(t, r, "hello") != "org.new" || r.Provider("org.old") != nil {
		t.Fatalf("hello by %s; old registered: %v", servedBy(t, r, "hello"), r.Provider("org.old") != nil)
	}
	ev1, ev2 := <-events, <-events
	if ev1.Provider.ID != "org.new" || ev1.Provider.Action != "added" || ev2.Provider.ID != "org.old" || ev2.Provider.Action != "removed" {
		t.Fatalf("events %+v %+v", ev1.Provider, ev2.Provider)
	}
	// A refused registration drops nothing.
	if err := r.Register(prov("org.other"), []abi.ToolDef{tool("zclash", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	_, err := r.Apply(prov("org.newer"), []abi.ToolDef{tool("hello", "1.0.0"), tool("zclash", "1.0.0")}, Options{Drop: "org.new"})
	wantCode(t, err, abi.Conflict, "zclash", "org.other")
	if servedBy(t, r, "hello") != "org.new" {
		t.Fatal("a refused registration dropped its Drop")
	}
}
