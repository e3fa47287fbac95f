package abi

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCapability(t *testing.T) {
	good := map[string]Capability{
		"ReadSpace(source)":        {Kind: "ReadSpace", Arg: "source", HasArg: true},
		" Network(*.example.com) ": {Kind: "Network", Arg: "*.example.com", HasArg: true},
		"Inference":                {Kind: "Inference"},
		"CallTool(*)":              {Kind: "CallTool", Arg: "*", HasArg: true},
		"Camera(front)":            {Kind: "Camera", Arg: "front", HasArg: true},
		"Custom_2":                 {Kind: "Custom_2"},
	}
	for in, want := range good {
		got, err := ParseCapability(in)
		if err != nil || got != want {
			t.Errorf("ParseCapability(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if err == nil && got.String() != want.String() {
			t.Errorf("String round trip %q", got.String())
		}
	}
	for _, bad := range []string{"", "ReadSpace", "ReadSpace()", "ReadSpace(a", "Inference(x)", "2Fast", "Read Space(x)", "ReadSpace(a b)", "CallTool((x))"} {
		if _, err := ParseCapability(bad); err == nil {
			t.Errorf("ParseCapability(%q) accepted", bad)
		}
	}
}

func TestCoversAndGlob(t *testing.T) {
	cases := []struct {
		grant, req string
		want       bool
	}{
		{"ReadSpace(*)", "ReadSpace(source)", true},
		{"ReadSpace(source)", "ReadSpace(source)", true},
		{"ReadSpace(source)", "ReadSpace(secret)", false},
		{"ReadSpace(src*)", "ReadSpace(source)", false},
		{"ReadSpace(so*)", "ReadSpace(source)", true},
		{"WriteSpace(*)", "ReadSpace(x)", false},
		{"Network(*.example.com)", "Network(api.example.com)", true},
		{"Network(*.example.com)", "Network(example.com)", false},
		{"CallTool(pdf-*)", "CallTool(pdf-extract)", true},
		{"CallTool(pdf-*)", "CallTool(*)", false},
		{"CallTool(*)", "CallTool(pdf-*)", true},
		{"CallTool(pdf-?x)", "CallTool(pdf-ax)", true},
		{"Inference", "Inference", true},
		{"Inference", "Network(x)", false},
	}
	for _, c := range cases {
		if got := MustCapability(c.grant).Covers(MustCapability(c.req)); got != c.want {
			t.Errorf("%s covers %s = %v, want %v", c.grant, c.req, got, c.want)
		}
	}
	if !Glob("a*b*c", "aXXbYYc") || Glob("a*b", "ab c") || !Glob("**", "") || Glob("?", "") {
		t.Error("Glob basics wrong")
	}
}

func TestIntersectAttenuates(t *testing.T) {
	caller, _ := ParseGrants([]string{"ReadSpace(*)", "CallTool(*)", "Inference"})
	provider, _ := ParseGrants([]string{"ReadSpace(docs)", "CallTool(pdf-*)", "Network(*)"})
	got := Intersect(caller, provider).Strings()
	want := []string{"CallTool(pdf-*)", "ReadSpace(docs)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Intersect = %v, want %v", got, want)
	}
	eff := Intersect(caller, provider)
	for _, s := range []string{"Inference", "Network(x)", "ReadSpace(secret)", "CallTool(echo)"} {
		if eff.Allows(MustCapability(s)) {
			t.Errorf("intersection allows %s", s)
		}
	}
	if _, err := ParseGrants([]string{"ok", "Bad("}); err == nil {
		t.Error("ParseGrants accepted a bad capability")
	}
}

func FuzzParseCapability(f *testing.F) {
	for _, s := range []string{"ReadSpace(x)", "Inference", "Network(*.a.b)", "a(", "(", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCapability(s)
		if err != nil {
			return
		}
		c2, err := ParseCapability(c.String())
		if err != nil || c2 != c {
			t.Fatalf("re-parse of %q: %+v %v", c.String(), c2, err)
		}
		if !c.Covers(c) {
			t.Fatalf("%s does not cover itself", c)
		}
	})
}

func TestTrustLevel(t *testing.T) {
	for _, l := range []TrustLevel{Untrusted, Community, Verified, System} {
		var got TrustLevel
		b, _ := l.MarshalText()
		if err := got.UnmarshalText(b); err != nil || got != l {
			t.Errorf("round trip %v: %v %v", l, got, err)
		}
	}
	if _, err := ParseTrustLevel("root"); err == nil {
		t.Error("accepted unknown trust level")
	}
	if !(System > Verified && Verified > Community && Community > Untrusted) {
		t.Error("ordering")
	}
}

func TestNames(t *testing.T) {
	for _, n := range []string{"echo", "analyze-complexity", "mcp-fs-read_file", "compat.browser.open_url", "A1"} {
		if err := ValidateToolName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range []string{"", "-x", "a b", "a/b", "é", string(make([]byte, 129))} {
		if err := ValidateToolName(n); err == nil {
			t.Errorf("tool name %q accepted", n)
		}
	}
	for _, id := range []string{"org.aios.browser.chrome", "io.x-y.z_1"} {
		if err := ValidateProviderID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"chrome", "Org.x", "org..x", ".org.x", "org.x.", "org/x"} {
		if err := ValidateProviderID(id); err == nil {
			t.Errorf("provider id %q accepted", id)
		}
	}
}

func TestAsToolError(t *testing.T) {
	te := Errorf(NotFound, "no tool %q", "x")
	if AsToolError(te, Internal) != te {
		t.Error("ToolError not passed through")
	}
	if CodeOf(nil) != "" || CodeOf(errString("boom")) != Internal {
		t.Error("CodeOf")
	}
	if !te.Is(&ToolError{Code: NotFound}) || te.Is(&ToolError{Code: Timeout}) {
		t.Error("Is by code")
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestLocalProviderID(t *testing.T) {
	for in, want := range map[string]string{
		"/x/pdf_tools.py":                        "local.pdf-tools",
		"/x/typo_type.js":                        "local.typo-type",
		"/x/My Tool.ts":                          "local.my-tool",
		"/x/__.py":                               "local.provider",
		"/x/a.b.js":                              "local.a-b",
		"/x/.js":                                 "local.provider",
		"summarizer.ts":                          "local.summarizer",
		"/x/" + strings.Repeat("a", 300) + ".js": "local." + strings.Repeat("a", 128),
	} {
		got := LocalProviderID(in)
		if got != want {
			t.Errorf("LocalProviderID(%q) = %q, want %q", in, got, want)
		}
		if err := ValidateProviderID(got); err != nil {
			t.Error(err)
		}
	}
}

func TestNetworkHost(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.":     "example.com",
		" api.example.com": "api.example.com",
		"127.0.0.1":        "127.0.0.1",
		"::ffff:127.0.0.1": "127.0.0.1",
		"::1":              "::1",
		"0:0:0:0:0:0:0:1":  "::1",
		"under_score.net":  "under_score.net",
		"ex\u00e4mple.com": "xn--exmple-cua.com", // its ASCII form (TestNetworkHostInternationalized)
	} {
		if got, err := NetworkHost(in); err != nil || got != want {
			t.Errorf("NetworkHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".", "::ffff:127.0.0.1%a.example.com", "127.0.0.1%x.example.com", "[::1].example.com", "a b.com", "host:80", "a/b", "ex\u00e4mple%x.com", "\u00e4:80"} {
		if got, err := NetworkHost(bad); err == nil {
			t.Errorf("NetworkHost(%q) = %q, want an error", bad, got)
		}
	}
}
