package registry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"
)

// clock is a fake registration clock that advances one second per reading.
func clock(r *Registry) func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	r.now = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
	return func() time.Time { return t0.Add(time.Duration(n) * time.Second) }
}

func at(t *testing.T, r *Registry, name, version string) time.Time {
	t.Helper()
	e, err := r.Resolve(name, version)
	if err != nil {
		t.Fatal(err)
	}
	return e.RegisteredAt
}

func TestRegisteredAt(t *testing.T) {
	r := New()
	last := clock(r)
	p := prov("org.a")
	if err := r.Register(p, []abi.ToolDef{tool("x", "1.0.0"), tool("y", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	first := last()
	if got := at(t, r, "x", "1.0.0"); !got.Equal(first) || got.Location() != time.UTC {
		t.Fatalf("x registered at %v, want %v (UTC)", got, first)
	}
	// Hot reload: x unchanged keeps its time, y changed and z new get the new one.
	y := tool("y", "1.0.0")
	y.Description = "changed"
	if err := r.Replace(prov("org.a"), []abi.ToolDef{tool("x", "1.0.0"), y, tool("z", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	second := last()
	if second.Equal(first) {
		t.Fatal("clock did not advance")
	}
	if got := at(t, r, "x", "1.0.0"); !got.Equal(first) {
		t.Errorf("unchanged x after reload: %v, want kept %v", got, first)
	}
	if got := at(t, r, "y", "1.0.0"); !got.Equal(second) {
		t.Errorf("changed y after reload: %v, want renewed %v", got, second)
	}
	if got := at(t, r, "z", "1.0.0"); !got.Equal(second) {
		t.Errorf("new z: %v, want %v", got, second)
	}
	// Unregistered and registered again: a new time.
	if err := r.Unregister("org.a"); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(p, []abi.ToolDef{tool("x", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if got := at(t, r, "x", "1.0.0"); !got.Equal(last()) || got.Equal(first) {
		t.Errorf("x registered again: %v, want %v", got, last())
	}
	if r.Tools()[0].RegisteredAt.IsZero() {
		t.Error("Tools() entry has no RegisteredAt")
	}
}

// withParams is tool name@version whose parameters are the object schema
// with props and required.
func withParams(name, version string, props map[string]any, required ...any) abi.ToolDef {
	d := tool(name, version)
	d.Parameters = map[string]any{"type": "object", "properties": props, "required": required}
	return d
}

var (
	propsA  = map[string]any{"a": map[string]any{"type": "string"}}
	propsAB = map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "integer"}}
)

func TestSemverCheckWarn(t *testing.T) {
	r := New()
	var warned []SemverViolation
	if err := r.SetSemverCheck(SemverWarn, func(v SemverViolation) { warned = append(warned, v) }); err != nil {
		t.Fatal(err)
	}
	events, cancel := r.Subscribe(8)
	defer cancel()
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsA, "a")}); err != nil {
		t.Fatal(err)
	}
	<-events
	// Compatible: an optional parameter, a minor version.
	if err := r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; len(ev.Violations) != 0 || len(warned) != 0 {
		t.Fatalf("compatible change reported: %v %v", ev.Violations, warned)
	}
	// Breaking (b becomes required) without a major increase: registered, reported.
	if err := r.Register(prov("org.c"), []abi.ToolDef{withParams("t", "1.2.0", propsAB, "a", "b")}); err != nil {
		t.Fatalf("warn mode refused: %v", err)
	}
	ev := <-events
	if len(ev.Violations) != 1 || len(warned) != 1 {
		t.Fatalf("violation not reported: event %v, warned %v", ev.Violations, warned)
	}
	v := warned[0]
	if v.Tool != "t" || v.Version != "1.2.0" || v.Previous != "1.1.0" || v.PreviousProvider != "org.b" || v.Provider != "org.c" ||
		len(v.Changes) != 1 || v.Changes[0].Path != "/parameters/properties/b" || v.Changes[0].Kind != schema.RequiredAdded {
		t.Fatalf("violation: %+v", v)
	}
	e, _ := r.Resolve("t", "1.2.0")
	if e.Violation == nil || e.Violation.Previous != "1.1.0" {
		t.Fatalf("Entry.Violation: %+v", e.Violation)
	}
	if s := v.String(); !strings.Contains(s, "t@1.2.0") || !strings.Contains(s, "t@1.1.0") || !strings.Contains(s, "/parameters/properties/b: required-added") {
		t.Errorf("String: %s", s)
	}
	// The same breaking change with a major increase is fine.
	if err := r.Register(prov("org.d"), []abi.ToolDef{withParams("t", "2.0.0", map[string]any{}, "c")}); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; len(ev.Violations) != 0 || len(warned) != 1 {
		t.Fatalf("major increase reported: %v", ev.Violations)
	}
	// A pre-release promises nothing.
	if err := r.Register(prov("org.e"), []abi.ToolDef{withParams("t", "2.1.0-beta.1", map[string]any{}, "d")}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 {
		t.Fatalf("pre-release reported: %v", warned[1:])
	}
}

func TestSemverCheckRefuse(t *testing.T) {
	r := New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "0.3.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	// 0.x: the minor is the breaking digit. A patch may not remove b.
	err := r.Register(prov("org.b"), []abi.ToolDef{tool("other", "1.0.0"), withParams("t", "0.3.1", propsA, "a", "b")})
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.InvalidRequest {
		t.Fatalf("want InvalidRequest, got %v", err)
	}
	for _, want := range []string{"t@0.3.1", "t@0.3.0", "org.a", "org.b", "/parameters/properties/b: required-added", "0.4.0"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("error %q does not name %q", te.Message, want)
		}
	}
	if r.Provider("org.b") != nil || r.Versions("other") != nil {
		t.Fatal("a refused registration changed the registry")
	}
	// A minor increase is allowed for 0.x.
	if err := r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "0.4.0", propsA, "a", "b")}); err != nil {
		t.Fatal(err)
	}
	// A hot reload that replaces 0.4.0 by a breaking 0.4.1 is compared with the 0.4.0 it withdraws.
	err = r.Replace(prov("org.b"), []abi.ToolDef{withParams("t", "0.4.1", propsA, "a", "b", "c")})
	if !errors.As(err, &te) || !strings.Contains(te.Message, "t@0.4.0") {
		t.Fatalf("replace with a breaking patch: %v", err)
	}
	// Returns: a widened result type breaks callers.
	ret := func(version, typ string) abi.ToolDef {
		d := tool("r", version)
		d.Returns = map[string]any{"type": typ}
		return d
	}
	if err := r.Register(prov("org.c"), []abi.ToolDef{ret("1.0.0", "integer")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.d"), []abi.ToolDef{ret("1.0.1", "number")}); err == nil || !strings.Contains(err.Error(), "/returns/type: type-widened") {
		t.Fatalf("widened result type: %v", err)
	}
	if err := r.Register(prov("org.d"), []abi.ToolDef{ret("1.0.1", "integer")}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetSemverCheck("strict", nil); err == nil {
		t.Fatal("bad mode accepted")
	}
}

func TestSemverCheckOff(t *testing.T) {
	r := New()
	called := false
	if err := r.SetSemverCheck(SemverOff, func(SemverViolation) { called = true }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsA)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.0.1", propsA, "a", "z")}); err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Resolve("t", "1.0.1"); e.Violation != nil || called {
		t.Fatal("off mode reported a violation")
	}
}

func TestRegistryDiff(t *testing.T) {
	r := New()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.SetSemverCheck(SemverOff, nil))
	must(r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsA), withParams("t", "1.1.0", propsAB)}))
	must(r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "2.0.0", propsAB, "b"), tool("solo", "1.0.0")}))

	d, err := r.Diff("t", "", "")
	must(err)
	if d.From != "1.1.0" || d.To != "2.0.0" || !d.Breaking || d.FromProvider != "org.a" || d.ToProvider != "org.b" ||
		len(d.Changes) != 1 || d.Changes[0].Kind != schema.RequiredAdded {
		t.Fatalf("default diff: %+v", d)
	}
	d, err = r.Diff("t", "", "1.1.0")
	must(err)
	if d.From != "1.0.0" || d.Breaking || len(d.Changes) != 1 || d.Changes[0].Kind != schema.PropertyAdded {
		t.Fatalf("1.0.0 → 1.1.0: %+v", d)
	}
	d, err = r.Diff("t", "2.0.0", "1.0.0")
	must(err)
	if d.From != "2.0.0" || d.To != "1.0.0" || len(d.Changes) != 2 {
		t.Fatalf("backwards: %+v", d)
	}
	d, err = r.Diff("t", "1.0.0", "1.0.0")
	must(err)
	if d.Changes == nil || len(d.Changes) != 0 || d.Breaking {
		t.Fatalf("same version: %+v", d)
	}
	for _, c := range []struct {
		name, from, to string
		code           abi.ErrorCode
		words          []string
	}{
		{"tt", "", "", abi.NotFound, []string{"tt", "t"}},
		{"t", "", "3.0.0", abi.NotFound, []string{"no version 3.0.0", "1.0.0, 1.1.0, 2.0.0"}},
		{"t", "0.9.0", "", abi.NotFound, []string{"no version 0.9.0"}},
		{"t", "", "1.x", abi.InvalidParams, []string{`"1.x"`, "to version"}},
		{"t", "v1", "", abi.InvalidParams, []string{`"v1"`, "from version"}},
		{"solo", "", "", abi.NotFound, []string{"no version below 1.0.0"}},
		{"t", "", "1.0.0", abi.NotFound, []string{"no version below 1.0.0"}},
	} {
		_, err := r.Diff(c.name, c.from, c.to)
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != c.code {
			t.Errorf("Diff(%q, %q, %q): want %s, got %v", c.name, c.from, c.to, c.code, err)
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(te.Message, w) {
				t.Errorf("Diff(%q, %q, %q): %q does not say %q", c.name, c.from, c.to, te.Message, w)
			}
		}
	}
}
