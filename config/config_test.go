package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"gopkg.in/yaml.v3"
)

func TestDefaultIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Limits.MaxParamsBytes != 4<<20 || c.Limits.MaxResultBytes != 16<<20 ||
		c.Limits.MaxCallDepth != 8 || c.Limits.DefaultDeadline != 30*time.Second {
		t.Fatalf("limits = %+v", c.Limits)
	}
	g, err := c.AgentGrants("cli")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ReadSpace(source)", "WriteSpace(x)", "CallTool(analyze-complexity)", "Inference"} {
		if !g.Allows(abi.MustCapability(want)) {
			t.Errorf("cli does not hold %s", want)
		}
	}
	if g.Allows(abi.MustCapability("Network(example.com)")) {
		t.Error("cli holds Network by default")
	}
	if c.RateLimits.Global == nil || c.RateLimits.PerCaller != nil || len(c.RateLimits.PerTool) != 0 {
		t.Errorf("rate limits = %+v", c.RateLimits)
	}
	caps, _ := c.TrustCaps(abi.Untrusted)
	if len(caps) != 1 || caps[0].String() != "CallTool(*)" {
		t.Errorf("Untrusted caps = %v", caps)
	}
	sys, _ := c.TrustCaps(abi.System)
	if !sys.Allows(abi.MustCapability("Network(x)")) {
		t.Error("System cannot use the network")
	}
	if c.UnsignedTrust() != abi.Untrusted {
		t.Error("unsigned providers are not Untrusted")
	}
}

func TestDataDirDefault(t *testing.T) {
	t.Setenv("AIOS_DATA", "/a/b")
	if d := DefaultDataDir(); d != "/a/b" {
		t.Fatalf("with AIOS_DATA: %q", d)
	}
	t.Setenv("AIOS_DATA", "")
	t.Setenv("XDG_STATE_HOME", "/state")
	if d := DefaultDataDir(); d != "/state/aios-host" {
		t.Fatalf("with XDG_STATE_HOME: %q", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d := DefaultDataDir(); d != "/home/u/.local/state/aios-host" {
		t.Fatalf("from HOME: %q", d)
	}
	c := Default()
	if c.AuditPath() != "/home/u/.local/state/aios-host/audit.jsonl" || c.SpacesDir() != "/home/u/.local/state/aios-host/spaces" {
		t.Fatalf("AuditPath %q SpacesDir %q", c.AuditPath(), c.SpacesDir())
	}
}

func TestExampleLoads(t *testing.T) {
	c, err := Load("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents["reader"].MaxPermission != "medium" || c.AgentMaxPermission("reader") != "medium" || c.Audit.FlushDelay != time.Millisecond {
		t.Fatalf("max_permission / flush_delay not decoded: %+v %+v", c.Agents["reader"], c.Audit)
	}
	if c.Agents["reader"].Rate.PerSecond != 5 || c.RateLimits.PerTool["analyze-complexity"].Burst != 100 {
		t.Fatalf("example not decoded: %+v", c)
	}
	if c.Providers["org.example.pdf-tools"].Trust != "Community" {
		t.Fatalf("providers = %+v", c.Providers)
	}
	if strings.HasPrefix(c.Data, "~") {
		t.Fatalf("~ not expanded in %q", c.Data)
	}
	if c.Line("agents.reader.grants[1]") == 0 {
		t.Fatal("no line recorded for agents.reader.grants[1]")
	}
}

func TestPartialFileKeepsDefaults(t *testing.T) {
	c, err := Parse([]byte("limits:\n  max_call_depth: 3\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.MaxCallDepth != 3 || c.Limits.DefaultDeadline != 30*time.Second || c.Agents["cli"].Grants == nil {
		t.Fatalf("config = %+v", c)
	}
	empty, err := Parse(nil, "empty.yaml")
	if err != nil || empty.Limits.MaxCallDepth != 8 {
		t.Fatalf("empty file: %v %+v", err, empty)
	}
}

func TestBadConfigs(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       string // substring of the error, including file:line
	}{
		{"bad capability", "agents:\n  cli:\n    grants:\n      - ReadSpace(*)\n      - Foo(\n",
			`c.yaml:5: agents.cli.grants[1]: capability "Foo(": missing closing parenthesis`},
		{"unknown top key", "plugin: [x]\n", `c.yaml:1: plugin: unknown key "plugin"`},
		{"unknown nested key", "limits:\n  max_depth: 3\n", `c.yaml:2: limits.max_depth: unknown key "max_depth"`},
		{"suggestion", "limits:\n  MaxCallDepth: 3\n", `did you mean "max_call_depth"`},
		{"unknown agent key", "agents:\n  bob:\n    grant: []\n", `c.yaml:3: agents.bob.grant: unknown key`},
		{"bad duration", "limits:\n  default_deadline: soon\n", "c.yaml:2: limits.default_deadline: cannot unmarshal"},
		{"int duration", "limits:\n  default_deadline: 30\n", "c.yaml:2: limits.default_deadline: cannot unmarshal"},
		{"negative duration", "limits:\n  default_deadline: -1s\n", "c.yaml:2: limits.default_deadline: must be a positive duration"},
		{"zero limit", "limits:\n  max_params_bytes: 0\n", "c.yaml:2: limits.max_params_bytes: must be positive"},
		{"string for int", "limits:\n  max_call_depth: deep\n", "c.yaml:2: limits.max_call_depth: cannot unmarshal !!str `deep`"},
		{"deep depth", "limits:\n  max_call_depth: 1000\n", "more than 64"},
		{"trust level", "trust:\n  unsigned: Friendly\n", `c.yaml:2: trust.unsigned: unknown trust level "Friendly"`},
		{"trust caps level", "trust:\n  caps:\n    Trusted: []\n", `c.yaml:3: trust.caps.Trusted: unknown trust level`},
		{"rate", "rate_limits:\n  global: {per_second: 0}\n", "rate_limits.global.per_second: must be positive"},
		{"max permission", "agents:\n  bob:\n    grants: []\n    max_permission: root\n", `c.yaml:4: agents.bob.max_permission: "root" is not one of public, low, medium, high, critical`},
		{"agent method", "agents:\n  bob:\n    methods: [tools/call, aios/registry.refesh]\n", `c.yaml:3: agents.bob.methods[1]: "aios/registry.refesh" names no JSON-RPC method of the host; did you mean "aios/registry.refresh"?`},
		{"agent method metrics", "agents:\n  bob:\n    methods: [metric]\n", `c.yaml:3: agents.bob.methods[0]: "metric" names no JSON-RPC method of the host; did you mean "metrics"?`},
		{"agent method prefix", "agents:\n  bob:\n    methods: [\"aios/reg*\", \"mcp/*\"]\n", `agents.bob.methods[1]: "mcp/*" names no JSON-RPC method of the host (known: initialize,`},
		{"flush delay", "audit:\n  flush_delay: 2s\n", "c.yaml:2: audit.flush_delay: 2s is not between 0 and 1s"},
		{"audit max files", "audit:\n  max_files: -1\n", "c.yaml:2: audit.max_files: -1 is negative; 0 keeps every rotated file"},
		{"audit max files without rotation", "audit:\n  max_bytes: 0\n  max_files: 3\n", "c.yaml:3: audit.max_files: 3 needs rotation: audit.max_bytes is 0"},
		{"tool rate name", "rate_limits:\n  per_tool:\n    \"a/b\": {per_second: 1}\n", `rate_limits.per_tool["a/b"]: "a/b" is not a tool name`},
		{"agent name", "agents:\n  \"bad agent\":\n    grants: []\n", `c.yaml:2: agents["bad agent"]: invalid agent name`},
		{"provider id", "providers:\n  NotReverse:\n    trust: System\n", `c.yaml:2: providers.NotReverse: invalid provider id`},
		{"provider trust", "providers:\n  org.x.y:\n    trust: Root\n", `c.yaml:3: providers["org.x.y"].trust: unknown trust level "Root"`},
		{"default agent", "default_agent: nobody\n", `c.yaml:1: default_agent: agent "nobody" is not configured`},
		{"inference url", "inference:\n  url: ftp://x\n", "c.yaml:2: inference.url:"},
		{"inference rate", "inference:\n  rate: {per_second: 0}\n", "c.yaml:2: inference.rate.per_second: must be positive, got 0 (leave the rate out for no limit)"},
		{"inference concurrency", "inference:\n  max_concurrent: -1\n", "c.yaml:2: inference.max_concurrent: -1 is negative (leave it out, or 0, for the default 16)"},
		{"inference key header", "inference:\n  api_key_header: \"api key\"\n", `c.yaml:2: inference.api_key_header: "api key" is not an HTTP header name`},
		{"inference key header hop", "inference:\n  api_key_header: Content-Length\n", `inference.api_key_header: "Content-Length" is a header the HTTP client sets itself`},
		{"syntax", "limits: [\n", "c.yaml:"},
		{"tab syntax", "limits:\n\tmax_call_depth: 1\n", "c.yaml:2: YAML syntax"},
		{"duplicate key", "data: a\ndata: b\n", `already defined`},
		{"type of section", "agents: [1, 2]\n", "c.yaml:1: agents: cannot unmarshal"},
		{"empty data", "data: \"\"\n", "c.yaml:1: data: empty data directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "c.yaml")
			if err == nil {
				t.Fatalf("Parse accepted %q", c.yaml)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestAllErrorsReported(t *testing.T) {
	_, err := Parse([]byte("limits:\n  max_call_depth: 0\n  max_params_bytes: -1\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:") || !strings.Contains(err.Error(), "c.yaml:3:") {
		t.Fatalf("want both errors, got %v", err)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("%T is not *Error", err)
	}
}

type wasmSection struct {
	MaxMemory int           `yaml:"max_memory"`
	Fuel      time.Duration `yaml:"fuel"`
	Nested    struct {
		Flag bool `yaml:"flag"`
	} `yaml:"nested"`
}

func TestDecodeSection(t *testing.T) {
	src := "runtimes:\n  wasm:\n    max_memory: 64\n    nested:\n      flag: true\nserver:\n  listen: x\n"
	c, err := Parse([]byte(src), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := wasmSection{Fuel: time.Second}
	if err := DecodeSection(c.Runtimes["wasm"], &out); err != nil {
		t.Fatal(err)
	}
	if out.MaxMemory != 64 || !out.Nested.Flag || out.Fuel != time.Second {
		t.Fatalf("decoded %+v", out)
	}
	// Absent section: defaults untouched.
	if err := DecodeSection(c.Runtimes["js"], &out); err != nil || out.MaxMemory != 64 {
		t.Fatalf("absent section: %v %+v", err, out)
	}

	bad, err := Parse([]byte("runtimes:\n  wasm:\n    max_memory: 64\n    nested:\n      flg: true\n    fuel: 3\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = bad.Decode(bad.Runtimes["wasm"], "runtimes.wasm", &out)
	if err == nil || !strings.Contains(err.Error(), `c.yaml:5: runtimes.wasm.nested.flg: unknown key "flg"`) {
		t.Fatalf("Decode error = %v", err)
	}
	err = DecodeSection(bad.Runtimes["wasm"], &out)
	if err == nil || !strings.Contains(err.Error(), `config:5: nested.flg: unknown key`) {
		t.Fatalf("DecodeSection error = %v", err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("max_memory: 1\nfuel: 3\n"), &n); err != nil {
		t.Fatal(err)
	}
	err = DecodeSection(n, &out)
	if err == nil || !strings.Contains(err.Error(), "config:2: fuel: cannot unmarshal") {
		t.Fatalf("type error = %v", err)
	}
}

func TestFolderTrust(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse([]byte("trust:\n  folders:\n    "+dir+": Verified\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.FolderTrust(dir+"/") != abi.Verified {
		t.Fatalf("FolderTrust(%s) = %v", dir, c.FolderTrust(dir))
	}
	if c.FolderTrust(filepath.Join(dir, "other")) != abi.Untrusted {
		t.Fatal("unlisted folder is not Untrusted")
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load of a missing file = %v", err)
	}
}

func TestRateBurst(t *testing.T) {
	for _, c := range []struct {
		r    Rate
		want int
	}{{Rate{PerSecond: 2.5}, 3}, {Rate{PerSecond: 0.1}, 1}, {Rate{PerSecond: 5, Burst: 9}, 9}} {
		if got := c.r.BurstOf(); got != c.want {
			t.Errorf("%+v.BurstOf() = %d, want %d", c.r, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("example.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{"", "limits: {max_call_depth: 2}", "agents:\n  x:\n    grants: [\"Foo(\"]\n", "a: &x 1\nb: *x\n", "[1,2]", "runtimes:\n  wasm: {a: 1}\n",
		"limits: &a {max_call_depth: 3}\naudit: *a\n", "server: &s {x: 1}\nagents: {a: {<<: [*s, {grants: []}]}}\n",
		"limits: {max_params_bytes: 4.5, default_deadline: 1.5ns}\n", "data: x\n---\ndata: y\n", "runtimes: {javscript: {}}\n",
		"discovery:\n  keys: [{trust: Verified, jwks: k.json, expires: tomorrow}]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a config that Validate refuses: %v", err)
		}
	})
}

func TestUnmatchedTrustFolders(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	c := Default()
	c.Plugins = []string{filepath.Join(dir, "plugins"), "other/"}
	c.Trust.Folders = map[string]string{
		"plugins":                         "Community", // relative: taken from the working directory, so it matches
		"./other":                         "Verified",
		filepath.Join(dir, "elsewhere"):   "Community",
		"../" + filepath.Base(dir) + "/x": "Community",
	}
	got := c.UnmatchedTrustFolders()
	want := []string{"../" + filepath.Base(dir) + "/x", filepath.Join(dir, "elsewhere")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("UnmatchedTrustFolders = %q, want %q", got, want)
	}
}

// TestInferenceURLPasswordNotEchoed: an inference.url refused for its
// scheme is shown without the password it holds.
func TestInferenceURLPasswordNotEchoed(t *testing.T) {
	for _, u := range []string{"ftp://user:s3cretpw@x", "http://user:s3cretpw@", "http://user:s3cretpw@h:port"} {
		_, err := Parse([]byte("inference:\n  url: "+strconv.Quote(u)+"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "inference.url") || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("%s: %v; want a refusal without the password", u, err)
		}
	}
}

// agents.NAME.methods: unset allows every JSON-RPC method; a list allows
// those it names (exact, a prefix ending in *, or *), and initialize and
// aios/registry.unsubscribe always.
func TestAgentMethodAllowed(t *testing.T) {
	for _, c := range []struct {
		methods []string
		method  string
		want    bool
	}{
		{nil, "aios/registry.refresh", true},
		{[]string{}, "tools/call", false},
		{[]string{}, "initialize", true},
		{[]string{}, "aios/registry.unsubscribe", true},
		{[]string{"tools/call"}, "tools/call", true},
		{[]string{"tools/call"}, "tools/list", false},
		{[]string{"aios/registry.*"}, "aios/registry.search", true},
		{[]string{"aios/registry.*"}, "tools/call", false},
		{[]string{"*"}, "aios/registry.refresh", true},
		{[]string{"tools/*", "aios/registry.search"}, "aios/registry.refresh", false},
	} {
		if got := (Agent{Methods: c.methods}).MethodAllowed(c.method); got != c.want {
			t.Errorf("methods %q, %s: allowed %v, want %v", c.methods, c.method, got, c.want)
		}
	}
}

// TestTrustAppliesTo: providers.<id>.source binds the trust level to a
// file or a folder it is in, or to a non-path source exactly.
func TestTrustAppliesTo(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	for _, tc := range []struct {
		bound, source string
		want          bool
	}{
		{"", "/anything/x.js", true},
		{"/p/vendor", "/p/vendor", true},
		{"/p/vendor", "/p/vendor/tool.wasm", true},
		{"/p/vendor/", "/p/vendor/a/b.js", true},
		{"/p/vendor", "/p/vendor-evil/tool.wasm", false},
		{"/p/vendor", "/p/other/tool.wasm", false},
		{"/p/vendor", "/p", false},
		{"/p/vendor/tool.wasm", "/p/vendor/tool.wasm", true},
		{"/p/vendor/tool.wasm", "/p/vendor/other.wasm", false},
		{"~/plugins/v", home + "/plugins/v/t.py", true},
		{"remote:https://a.example/", "remote:https://a.example/", true},
		{"remote:https://a.example", "remote:https://a.example.evil", false},
		{"remote:https://a.example", "remote:https://a.example/x", false},
	} {
		if got := (ProviderOverride{Trust: "Verified", Source: tc.bound}).TrustAppliesTo(tc.source); got != tc.want {
			t.Errorf("source %q, provider from %q: applies = %v, want %v", tc.bound, tc.source, got, tc.want)
		}
	}
}

// TestSourceWithoutTrust: providers.<id>.source binds the trust level, so
// one without trust is a mistake, named with its line.
func TestSourceWithoutTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("providers:\n  org.example.x:\n    source: plugins/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "c.yaml:3") || !strings.Contains(err.Error(), `providers["org.example.x"].source`) || !strings.Contains(err.Error(), "trust is not set") {
		t.Fatalf("err = %v; want c.yaml:3 naming the entry's source and the missing trust", err)
	}
}
