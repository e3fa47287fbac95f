package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestReplaceRuntimeSourceTrustIsUpdate: a Replace with the same
// tools but another runtime, source or trust (a plugin renamed x.js →
// x.ts, a file moved to a folder of another trust, a shadowed description
// taking over) sent no event: a subscriber kept showing the tools'
// runtime, trust and source (tools/list shows them) as they were. Now
// the provider is "updated", with no tool changes.
func TestReplaceRuntimeSourceTrustIsUpdate(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	defs := []abi.ToolDef{tool("foo", "1.0.0")}
	rec := func(runtime, source string, tl abi.TrustLevel) *ProviderRecord {
		return &ProviderRecord{Info: abi.ProviderInfo{ID: "org.p", Name: "P", Version: "1.0.0", Runtime: runtime}, Trust: tl, Source: source}
	}
	if err := r.Register(rec(abi.RuntimeJS, "/p/x.js", abi.Community), defs); err != nil {
		t.Fatal(err)
	}
	events, cancel := r.Subscribe(16)
	defer cancel()
	for _, step := range []struct {
		what string
		rec  *ProviderRecord
		want bool
	}{
		{"same record", rec(abi.RuntimeJS, "/p/x.js", abi.Community), false},
		{"x.js renamed x.ts", rec(abi.RuntimeTS, "/p/x.ts", abi.Community), true},
		{"renamed y.ts", rec(abi.RuntimeTS, "/p/y.ts", abi.Community), true},
		{"trust lowered", rec(abi.RuntimeTS, "/p/y.ts", abi.Untrusted), true},
	} {
		if err := r.Replace(step.rec, defs); err != nil {
			t.Fatal(err)
		}
		var got []Event
		for len(events) > 0 {
			got = append(got, <-events)
		}
		switch {
		case !step.want && len(got) != 0:
			t.Errorf("%s: events %+v, want none", step.what, got)
		case step.want && (len(got) != 1 || got[0].Provider == nil || got[0].Provider.Action != "updated" ||
			len(got[0].Added)+len(got[0].Removed)+len(got[0].Updated) != 0):
			t.Errorf("%s: events %+v, want one provider update with no tool changes", step.what, got)
		}
	}
}
