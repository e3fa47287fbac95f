package registry

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
)

func prov(id string) *ProviderRecord {
	return &ProviderRecord{Info: abi.ProviderInfo{ID: id, Name: id, Runtime: abi.RuntimeNative}, Trust: abi.Community}
}

func tool(name, version string) abi.ToolDef {
	return abi.ToolDef{Name: name, Version: version, Description: "the " + name + " tool",
		Parameters: map[string]any{"type": "object"}}
}

func wantCode(t *testing.T, err error, code abi.ErrorCode, subs ...string) {
	t.Helper()
	var te *abi.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T), want *abi.ToolError %s", err, err, code)
	}
	if te.Code != code {
		t.Fatalf("code %s (%v), want %s", te.Code, te, code)
	}
	for _, s := range subs {
		if !strings.Contains(te.Message, s) {
			t.Errorf("message %q does not mention %q", te.Message, s)
		}
	}
}

func TestRegisterValidation(t *testing.T) {
	ok := tool("fine", "1.0.0")
	tests := []struct {
		name  string
		p     *ProviderRecord
		tools []abi.ToolDef
		subs  []string
	}{
		{"nil provider", nil, []abi.ToolDef{ok}, []string{"provider record"}},
		{"bad provider id", prov("NoDots"), []abi.ToolDef{ok}, []string{"NoDots"}},
		{"bad tool name", prov("org.x.p"), []abi.ToolDef{ok, tool("bad name", "1.0.0")}, []string{"bad name"}},
		{"empty tool name", prov("org.x.p"), []abi.ToolDef{tool("", "1.0.0")}, []string{"invalid tool name"}},
		{"short version", prov("org.x.p"), []abi.ToolDef{ok, tool("t", "1.2")}, []string{"t", `"1.2"`, "MAJOR.MINOR.PATCH"}},
		{"v prefix", prov("org.x.p"), []abi.ToolDef{tool("t", "v1.2.3")}, []string{`"v1.2.3"`}},
		{"garbage version", prov("org.x.p"), []abi.ToolDef{tool("t", "latest")}, []string{`"latest"`}},
		{"permission", prov("org.x.p"), []abi.ToolDef{{Name: "t", PermissionLevel: "root"}}, []string{"t", `"root"`, "critical"}},
		{"latency", prov("org.x.p"), []abi.ToolDef{{Name: "t", LatencyClass: "instant"}}, []string{"t", `"instant"`}},
		{"capability", prov("org.x.p"), []abi.ToolDef{{Name: "t", CapabilityRequired: []string{"ReadSpace"}}}, []string{"t", "ReadSpace"}},
		{"params schema", prov("org.x.p"), []abi.ToolDef{{Name: "t", Parameters: map[string]any{"type": "strin"}}}, []string{"t@1.0.0 parameters"}},
		{"returns schema", prov("org.x.p"), []abi.ToolDef{{Name: "t", Returns: map[string]any{"minimum": "x"}}}, []string{"t@1.0.0 returns"}},
		{"duplicate", prov("org.x.p"), []abi.ToolDef{tool("t", "1.0.0"), ok, tool("t", "1.0.0")}, []string{"t@1.0.0", "twice"}},
		{"duplicate default", prov("org.x.p"), []abi.ToolDef{tool("t", ""), tool("t", "1.0.0")}, []string{"twice"}},
		{"duplicate metadata", prov("org.x.p"), []abi.ToolDef{tool("t", "1.0.0+a"), tool("t", "1.0.0+b")}, []string{"twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			err := r.Register(tc.p, tc.tools)
			wantCode(t, err, abi.InvalidRequest, tc.subs...)
			if n := len(r.Tools()); n != 0 {
				t.Errorf("%d tools registered after a refused registration", n)
			}
			if n := len(r.Providers()); n != 0 {
				t.Errorf("%d providers registered after a refused registration", n)
			}
		})
	}
}

func TestRegisterDefaults(t *testing.T) {
	r := New()
	defs := []abi.ToolDef{
		{Name: "plain"},
		{Name: "dep", Version: "2.0.0", Deprecation: &abi.Deprecation{Message: "use plain", Replacement: "plain"},
			CapabilityRequired: []string{"ReadSpace(source)", "Inference"}, PermissionLevel: abi.PermissionHigh, LatencyClass: abi.LatencySlow},
	}
	if err := r.Register(prov("org.x.p"), defs); err != nil {
		t.Fatal(err)
	}
	e, err := r.Resolve("plain", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Def.Version != "1.0.0" || e.Version.String() != "1.0.0" {
		t.Errorf("default version %q, want 1.0.0", e.Def.Version)
	}
	if e.Def.PermissionLevel != abi.PermissionMedium || e.Def.LatencyClass != abi.LatencyNormal {
		t.Errorf("defaults: permission %q latency %q", e.Def.PermissionLevel, e.Def.LatencyClass)
	}
	if e.Params == nil || e.Returns == nil || e.Params.Validate("anything") != nil {
		t.Error("absent schemas must yield accept-anything validators")
	}
	d, err := r.Resolve("dep", "")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Def.Deprecated || d.Def.Deprecation.Replacement != "plain" {
		t.Errorf("deprecation not kept: %+v", d.Def)
	}
	if len(d.Caps) != 2 || d.Caps[0] != abi.MustCapability("ReadSpace(source)") || d.Caps[1].Kind != abi.CapInference {
		t.Errorf("caps = %v", d.Caps)
	}
	if d.Def.PermissionLevel != abi.PermissionHigh || d.Def.LatencyClass != abi.LatencySlow {
		t.Errorf("declared levels changed: %+v", d.Def)
	}
	defs[1].Tags = append(defs[1].Tags, "late")
	if len(d.Def.Tags) != 0 {
		t.Error("entry shares the caller's slices")
	}
}

func TestConflicts(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.a.tools"), []abi.ToolDef{tool("echo", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(prov("org.b.tools"), []abi.ToolDef{tool("other", "1.0.0"), tool("echo", "1.0.0")})
	wantCode(t, err, abi.Conflict, "echo@1.0.0", "org.a.tools", "org.b.tools")
	if r.Provider("org.b.tools") != nil {
		t.Error("refused provider was registered")
	}
	if _, err := r.Resolve("other", ""); err == nil {
		t.Error("tool of a refused registration was registered")
	}
	// Same provider id twice.
	wantCode(t, r.Register(prov("org.a.tools"), []abi.ToolDef{tool("x", "")}), abi.Conflict, "org.a.tools", "Replace")
	// Another version of the same name from another provider is fine.
	if err := r.Register(prov("org.b.tools"), []abi.ToolDef{tool("echo", "2.0.0")}); err != nil {
		t.Fatalf("side-by-side version refused: %v", err)
	}
	e, err := r.Resolve("echo", "")
	if err != nil || e.Provider.Info.ID != "org.b.tools" {
		t.Fatalf("Resolve(echo) = %v, %v; want 2.0.0 from org.b.tools", e, err)
	}
	e, err = r.Resolve("echo", "1.0.0")
	if err != nil || e.Provider.Info.ID != "org.a.tools" {
		t.Fatalf("Resolve(echo, 1.0.0) = %v, %v; want org.a.tools", e, err)
	}
	// Replace of b cannot steal a's version either.
	wantCode(t, r.Replace(prov("org.b.tools"), []abi.ToolDef{tool("echo", "1.0.0")}), abi.Conflict, "org.a.tools")
	if e, _ := r.Resolve("echo", "2.0.0"); e == nil {
		t.Error("failed Replace changed the registry")
	}
}

func resolveFixture(t testing.TB) *Registry {
	r := New()
	deprecated := func(d abi.ToolDef) abi.ToolDef { d.Deprecated = true; return d }
	if err := r.Register(prov("org.a.tools"), []abi.ToolDef{
		tool("echo", "1.0.0"), tool("echo", "1.2.0"), tool("echo", "1.4.3"),
		deprecated(tool("echo", "2.0.0")), tool("echo", "2.1.0-beta.1"),
		deprecated(tool("old", "1.0.0")), deprecated(tool("old", "1.1.0")),
		tool("pre", "0.1.0-alpha"), tool("pre", "0.1.0-beta"),
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolve(t *testing.T) {
	r := resolveFixture(t)
	tests := []struct {
		name, constraint string
		want             string // version, or error code
		subs             []string
	}{
		{"echo", "", "1.4.3", nil},
		{"echo", "1.0.0", "1.0.0", nil},
		{"echo", "2.0.0", "2.0.0", nil}, // exact: deprecated is still returned
		{"echo", "2.1.0-beta.1", "2.1.0-beta.1", nil},
		{"echo", "^1.2", "1.4.3", nil},
		{"echo", "~1.2", "1.2.0", nil},
		{"echo", ">=1.0, <2.0", "1.4.3", nil},
		{"echo", ">=1.0 <1.3", "1.2.0", nil},
		{"echo", "1.x", "1.4.3", nil},
		{"echo", "^2", "2.0.0", nil}, // only deprecated matches
		{"echo", "=1.2.0", "1.2.0", nil},
		{"echo", " 1.2.0 ", "1.2.0", nil},
		{"echo", ">=2.1.0-0", "2.1.0-beta.1", nil},
		{"old", "", "1.1.0", nil}, // all deprecated: newest
		{"pre", "", "0.1.0-beta", nil},
		{"echo", "3.0.0", string(abi.NotFound), []string{"3.0.0", "1.0.0, 1.2.0, 1.4.3, 2.0.0, 2.1.0-beta.1"}},
		{"echo", "^9", string(abi.NotFound), []string{"^9", "available"}},
		{"echo", "^^1", string(abi.InvalidParams), []string{`"^^1"`, "echo"}},
		{"echo", "1.2.3.4", string(abi.InvalidParams), []string{"1.2.3.4"}},
		{"ech", "", string(abi.NotFound), []string{`"ech"`, "echo"}},
		{"ECHO", "", string(abi.NotFound), []string{"echo"}},
		{"nothing-like-it", "", string(abi.NotFound), []string{"nothing-like-it"}},
	}
	for _, tc := range tests {
		t.Run(tc.name+"@"+tc.constraint, func(t *testing.T) {
			e, err := r.Resolve(tc.name, tc.constraint)
			switch tc.want {
			case string(abi.NotFound), string(abi.InvalidParams):
				wantCode(t, err, abi.ErrorCode(tc.want), tc.subs...)
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if e.Def.Version != tc.want {
				t.Errorf("got %s, want %s", e.Def.Version, tc.want)
			}
		})
	}
}

func TestResolveNoAllocs(t *testing.T) {
	r := resolveFixture(t)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.Resolve("echo", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Resolve("echo", "1.2.0"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Resolve allocates %v times, want 0", allocs)
	}
}

func TestReplaceEvents(t *testing.T) {
	r := New()
	ch, cancel := r.Subscribe(8)
	defer cancel()
	p := prov("org.a.tools")
	if err := r.Register(p, []abi.ToolDef{tool("a", "1.0.0"), tool("b", "1.0.0"), tool("c", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	ev := <-ch
	if len(ev.Added) != 3 || len(ev.Removed)+len(ev.Updated) != 0 || ev.Added[0] != (ToolRef{"a", "1.0.0", "org.a.tools"}) ||
		ev.Provider == nil || ev.Provider.ID != "org.a.tools" || ev.Provider.Action != "added" {
		t.Fatalf("register event = %+v", ev)
	}
	changed := tool("b", "1.0.0")
	changed.Description = "new text"
	p2 := prov("org.a.tools")
	if err := r.Replace(p2, []abi.ToolDef{tool("a", "1.0.0"), changed, tool("d", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	ev = <-ch
	if ev.Provider == nil || ev.Provider.Action != "updated" {
		t.Fatalf("replace event provider = %+v", ev.Provider)
	}
	ev.Provider = nil
	want := Event{
		Added:   []ToolRef{{"d", "1.0.0", "org.a.tools"}},
		Removed: []ToolRef{{"c", "1.0.0", "org.a.tools"}},
		Updated: []ToolRef{{"b", "1.0.0", "org.a.tools"}},
	}
	if fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("replace event = %+v, want %+v", ev, want)
	}
	if r.Provider("org.a.tools") != p2 {
		t.Error("Replace did not swap the provider record")
	}
	if e, _ := r.Resolve("a", ""); e == nil || e.Provider != p2 {
		t.Error("unchanged tool does not point at the new provider record")
	}
	// A Replace that changes nothing sends nothing.
	if err := r.Replace(p2, []abi.ToolDef{tool("a", "1.0.0"), changed, tool("d", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	// A new display name alone is an update of the provider.
	p3 := prov("org.a.tools")
	p3.Info.Name = "Renamed"
	if err := r.Replace(p3, []abi.ToolDef{tool("a", "1.0.0"), changed, tool("d", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	ev = <-ch
	if ev.Provider == nil || ev.Provider.Action != "updated" || ev.Provider.Name != "Renamed" || len(ev.Added)+len(ev.Removed)+len(ev.Updated) != 0 {
		t.Fatalf("rename event = %+v (provider %+v)", ev, ev.Provider)
	}
	p2 = p3
	// A refused Replace keeps the old set.
	err := r.Replace(p2, []abi.ToolDef{tool("z", "1.0")})
	wantCode(t, err, abi.InvalidRequest, "1.0")
	if got := len(r.ProviderTools("org.a.tools")); got != 3 {
		t.Errorf("%d tools after a refused Replace, want 3", got)
	}
	if err := r.Unregister("org.a.tools"); err != nil {
		t.Fatal(err)
	}
	ev = <-ch
	if len(ev.Removed) != 3 || len(ev.Added) != 0 || ev.Provider == nil || ev.Provider.Action != "removed" {
		t.Errorf("unregister event = %+v", ev)
	}
	wantCode(t, r.Unregister("org.a.tools"), abi.NotFound, "org.a.tools")
	if len(r.Tools()) != 0 || len(r.Providers()) != 0 {
		t.Error("registry not empty after Unregister")
	}
	select {
	case ev := <-ch:
		t.Errorf("unexpected event %+v", ev)
	default:
	}
}

func TestReplaceRegistersNewProvider(t *testing.T) {
	r := New()
	if err := r.Replace(prov("org.new.p"), []abi.ToolDef{tool("t", "")}); err != nil {
		t.Fatal(err)
	}
	if r.Provider("org.new.p") == nil {
		t.Error("Replace of an unknown provider did not register it")
	}
}

func TestSubscribeOverflow(t *testing.T) {
	r := New()
	ch, cancel := r.Subscribe(1)
	for i := range 5 {
		if err := r.Register(prov(fmt.Sprintf("org.p.n%d", i)), []abi.ToolDef{tool(fmt.Sprintf("t%d", i), "")}); err != nil {
			t.Fatal(err)
		}
	}
	ev := <-ch
	if !ev.Overflow || len(ev.Added) != 0 {
		t.Errorf("slow subscriber got %+v, want an Overflow event", ev)
	}
	if err := r.Register(prov("org.p.last"), []abi.ToolDef{tool("last", "")}); err != nil {
		t.Fatal(err)
	}
	ev = <-ch
	if ev.Overflow || len(ev.Added) != 1 || ev.Added[0].Name != "last" {
		t.Errorf("after catching up got %+v", ev)
	}
	cancel()
	cancel() // idempotent
	if _, open := <-ch; open {
		t.Error("channel open after cancel")
	}
	if err := r.Register(prov("org.p.after"), []abi.ToolDef{tool("after", "")}); err != nil {
		t.Fatal(err)
	}
}

func TestListingsSorted(t *testing.T) {
	r := New()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Register(prov("org.z.p"), []abi.ToolDef{tool("b", "1.10.0"), tool("a", "1.0.0")}))
	must(r.Register(prov("org.a.p"), []abi.ToolDef{tool("b", "1.9.0"), tool("c", "0.1.0")}))
	must(r.Register(prov("org.m.p"), []abi.ToolDef{tool("b", "1.2.0")}))
	var got []string
	for _, e := range r.Tools() {
		got = append(got, e.Def.Name+"@"+e.Def.Version)
	}
	if want := "a@1.0.0 b@1.2.0 b@1.9.0 b@1.10.0 c@0.1.0"; strings.Join(got, " ") != want {
		t.Errorf("Tools() = %v, want %s", got, want)
	}
	var ids []string
	for _, p := range r.Providers() {
		ids = append(ids, p.Info.ID)
	}
	if want := "org.a.p org.m.p org.z.p"; strings.Join(ids, " ") != want {
		t.Errorf("Providers() = %v", ids)
	}
	must(r.Unregister("org.m.p"))
	if vs := r.Versions("b"); len(vs) != 2 || vs[0].Def.Version != "1.9.0" {
		t.Errorf("Versions(b) = %v", vs)
	}
}

func TestConcurrentResolveReplace(t *testing.T) {
	r := New()
	ids := []string{"org.c.p0", "org.c.p1", "org.c.p2"}
	defsFor := func(i, gen int) []abi.ToolDef {
		d := tool(fmt.Sprintf("tool%d", i), fmt.Sprintf("1.%d.0", gen%3))
		d.Description = fmt.Sprintf("generation %d", gen)
		return []abi.ToolDef{d, tool(fmt.Sprintf("stable%d", i), "")}
	}
	for i, id := range ids {
		if err := r.Register(prov(id), defsFor(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	ch, cancel := r.Subscribe(4)
	defer cancel()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gen := 1; gen < 200; gen++ {
				if err := r.Replace(prov(ids[i]), defsFor(i, gen)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for k := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := k % len(ids)
				e, err := r.Resolve(fmt.Sprintf("tool%d", i), "")
				if err != nil || e.Provider.Info.ID != ids[i] {
					t.Errorf("Resolve during Replace: %v %v", e, err)
					return
				}
				if _, err := r.Resolve(fmt.Sprintf("stable%d", i), "^1"); err != nil {
					t.Errorf("Resolve stable: %v", err)
					return
				}
				_ = r.Search(Query{Text: "tool generation"})
				_ = r.Tools()
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if n := len(r.Tools()); n != 6 {
		t.Errorf("%d tools at the end, want 6", n)
	}
	drained := 0
	for len(ch) > 0 {
		<-ch
		drained++
	}
	if drained == 0 {
		t.Error("subscriber received nothing")
	}
}

func FuzzResolveConstraint(f *testing.F) {
	for _, s := range []string{"", "1.0.0", "^1.2", "~1.4", ">=1.0, <2.0", "1.x", "*", "^^", "|| 1", ">=1.0.0-0",
		"1.2.3 - 2.3.4", "!=1.2.0", "v1", "=", "~>1.0", "x.y.z", strings.Repeat("1.", 50)} {
		f.Add("echo", s)
	}
	f.Add("ech", "")
	r := resolveFixture(f)
	f.Fuzz(func(t *testing.T, name, constraint string) {
		e, err := r.Resolve(name, constraint)
		// Asked again (the memo answers now), the same answer.
		if e2, err2 := r.Resolve(name, constraint); e2 != e || abi.CodeOf(err2) != abi.CodeOf(err) {
			t.Fatalf("Resolve(%q, %q) = %v, %v; asked again %v, %v", name, constraint, e, err, e2, err2)
		}
		want, wantCode := referenceResolve(r.Versions(name), constraint)
		if err != nil {
			switch abi.CodeOf(err) {
			case abi.NotFound, abi.InvalidParams:
			default:
				t.Fatalf("Resolve(%q, %q): unexpected error %v", name, constraint, err)
			}
			if r.Versions(name) != nil && (abi.CodeOf(err) != wantCode || want != nil) {
				t.Fatalf("Resolve(%q, %q): %v; the reference resolves to %v (%s)", name, constraint, err, want, wantCode)
			}
			return
		}
		if e == nil || e.Def.Name != name {
			t.Fatalf("Resolve(%q, %q) = %v", name, constraint, e)
		}
		if constraint != "" && e != want {
			t.Fatalf("Resolve(%q, %q) = %s; the reference resolves to %v (%s)", name, constraint, e.Def.Version, want, wantCode)
		}
	})
}

// referenceResolve is Resolve over versions (oldest first, one provider)
// as docs/registry.md says it: the version written exactly, else the
// newest version that satisfies the constraint and is not deprecated,
// else the newest deprecated one; a constraint semver cannot read is
// InvalidParams, one nothing satisfies NotFound.
func referenceResolve(versions []*Entry, constraint string) (*Entry, abi.ErrorCode) {
	for _, e := range versions {
		if e.Def.Version == constraint {
			return e, ""
		}
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return nil, abi.InvalidParams
	}
	var deprecated *Entry
	for i := len(versions) - 1; i >= 0; i-- {
		e := versions[i]
		if !c.Check(e.Version) {
			continue
		}
		if !e.Def.Deprecated {
			return e, ""
		}
		if deprecated == nil {
			deprecated = e
		}
	}
	if deprecated != nil {
		return deprecated, ""
	}
	return nil, abi.NotFound
}

func trusted(id string, level abi.TrustLevel) *ProviderRecord {
	p := prov(id)
	p.Trust = level
	return p
}

// TestLessTrustedProviderCannotShadow: a provider may not add versions of
// a name that a more trusted provider holds (an unsigned plugin offering
// analyze-complexity 9.0.0 took every unconstrained call from the System
// provider's 1.0.0); one of equal or higher trust may.
func TestLessTrustedProviderCannotShadow(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.sys.tools", abi.System), []abi.ToolDef{tool("analyze", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(trusted("org.evil.shadow", abi.Untrusted), []abi.ToolDef{tool("other", "1.0.0"), tool("analyze", "9.0.0")})
	wantCode(t, err, abi.Conflict, "analyze", "org.sys.tools (trust System)", "org.evil.shadow (trust Untrusted)")
	// Nothing of the refused provider was registered, and hot reload
	// (Replace) is refused the same way.
	if r.Provider("org.evil.shadow") != nil || r.Versions("other") != nil {
		t.Fatal("a refused registration left something behind")
	}
	wantCode(t, r.Replace(trusted("org.evil.shadow", abi.Community), []abi.ToolDef{tool("analyze", "9.0.0")}), abi.Conflict, "org.sys.tools")
	if e, err := r.Resolve("analyze", ""); err != nil || e.Provider.Info.ID != "org.sys.tools" {
		t.Fatalf("analyze resolves to %v, %v", e, err)
	}
	// Equal trust: side by side, the newest is the default.
	if err := r.Register(trusted("org.sys.more", abi.System), []abi.ToolDef{tool("analyze", "2.0.0")}); err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Resolve("analyze", ""); e.Provider.Info.ID != "org.sys.more" {
		t.Fatalf("equal trust: default from %s, want org.sys.more", e.Provider.Info.ID)
	}
}

// TestMoreTrustedProviderShadowsName: when a less trusted provider held a
// name first, a more trusted one may still register it, and then serves
// the name alone: the less trusted provider's versions, the same and the
// others, are shadowed (as if it had registered second, when its versions
// of the name would have been refused), and come back when it leaves.
func TestMoreTrustedProviderShadowsName(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.first.untrusted", abi.Untrusted), []abi.ToolDef{tool("analyze", "9.0.0"), tool("analyze", "1.5.0"), tool("other", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Apply(trusted("org.later.verified", abi.Verified), []abi.ToolDef{tool("analyze", "1.0.0")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Displaced) != 2 {
		t.Errorf("Displaced = %+v, want analyze 1.5.0 and 9.0.0 of org.first.untrusted", rep.Displaced)
	}
	for _, c := range []string{"", "^1", ">=1.0.0", "1.0.0"} {
		e, err := r.Resolve("analyze", c)
		if err != nil || e.ver != "1.0.0" || e.Provider.Info.ID != "org.later.verified" {
			t.Errorf("Resolve(%q) = %v, %v; want 1.0.0 from org.later.verified", c, e, err)
		}
	}
	for _, c := range []string{"^9", "9.0.0", "1.5.0", "~1.5"} {
		if e, err := r.Resolve("analyze", c); abi.CodeOf(err) != abi.NotFound {
			t.Errorf("Resolve(%q) = %v, %v; want NotFound: the less trusted versions are shadowed", c, e, err)
		}
	}
	if got := len(r.Shadowed("org.first.untrusted")); got != 2 {
		t.Errorf("%d shadowed versions of org.first.untrusted, want 2", got)
	}
	if e, err := r.Resolve("other", ""); err != nil || e.Provider.Info.ID != "org.first.untrusted" {
		t.Errorf("the less trusted provider's other tool: %v, %v", e, err)
	}
	// Registered the other way round, the same state: the less trusted
	// versions are refused, or left out in a partial registration.
	r2 := New()
	if err := r2.Register(trusted("org.later.verified", abi.Verified), []abi.ToolDef{tool("analyze", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Register(trusted("org.first.untrusted", abi.Untrusted), []abi.ToolDef{tool("analyze", "9.0.0")}); abi.CodeOf(err) != abi.Conflict {
		t.Errorf("less trusted second: %v, want Conflict", err)
	}
	if rep, err := r2.Apply(trusted("org.first.untrusted", abi.Untrusted), []abi.ToolDef{tool("analyze", "9.0.0"), tool("analyze", "1.5.0"), tool("other", "1.0.0")}, Options{Partial: true}); err != nil || len(rep.LeftOut) != 2 {
		t.Errorf("less trusted second, partial: %+v, %v; want two versions left out", rep, err)
	}
	if a, b := toolsStr2(r.Tools()), toolsStr2(r2.Tools()); a != b {
		t.Errorf("the order of registration changes what is served:\n%s\n%s", a, b)
	}
	// Once the trusted provider leaves, the default is the other's newest.
	if err := r.Unregister("org.later.verified"); err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Resolve("analyze", ""); e == nil || e.ver != "9.0.0" {
		t.Fatalf("after unregistering: default %v, want 9.0.0", e)
	}
}

func toolsStr2(es []*Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Def.Name+"@"+e.ver+"/"+e.Provider.Info.ID)
	}
	return strings.Join(s, " ")
}
