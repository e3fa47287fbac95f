package wasm

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/config"
)

// docConfigBlock returns the YAML block that follows marker in the doc
// at path, indented as a config file's, and the keys under section.
func docConfigBlock(t *testing.T, path, marker string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("%s has no %q", path, marker)
	}
	_, after, ok = strings.Cut(after, "```yaml\n")
	if !ok {
		t.Fatalf("%s: no yaml block after %q", path, marker)
	}
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("%s: the yaml block after %q does not end", path, marker)
	}
	return block
}

// TestDocumentedWasmConfig: the runtimes.wasm section's keys min_idle,
// idle_timeout, default_deadline and stdout (log or discard) had their
// meaning and defaults said only in the Go source, no user-facing page
// listing the section. docs/abi.md §6 has a block of every key with its
// default; this keeps the block decoding strictly into Config, naming
// every key, with the defaults withDefaults gives.
func TestDocumentedWasmConfig(t *testing.T) {
	block := docConfigBlock(t, "../../docs/abi.md", "**Configuration**: every key of `runtimes.wasm`")
	var doc struct {
		Runtimes struct {
			Wasm yaml.Node `yaml:"wasm"`
		} `yaml:"runtimes"`
	}
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatalf("docs/abi.md's runtimes.wasm block: %v", err)
	}
	var got Config
	if err := config.DecodeSection(doc.Runtimes.Wasm, &got); err != nil {
		t.Fatalf("docs/abi.md's runtimes.wasm block does not decode strictly: %v", err)
	}
	// Every key of Config is named.
	named := map[string]bool{}
	for i := 0; i+1 < len(doc.Runtimes.Wasm.Content); i += 2 {
		named[doc.Runtimes.Wasm.Content[i].Value] = true
	}
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		if k, _, _ := strings.Cut(ct.Field(i).Tag.Get("yaml"), ","); k != "" && !named[k] {
			t.Errorf("docs/abi.md's runtimes.wasm block leaves out %s", k)
		}
	}
	// The values shown are the defaults (an empty string is the default
	// the doc spells out).
	def, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for f, word := range map[*string]string{&def.Engine: "wazero", &def.UntrustedComponents: UntrustedComponentsWazero,
		&def.Stdout: "log", &def.Clock: "fake", &def.Random: "fake"} {
		if *f == "" {
			*f = word
		}
	}
	got.Providers, def.Providers = nil, nil // an example, not a default
	if !reflect.DeepEqual(got, def) {
		t.Errorf("docs/abi.md's runtimes.wasm block shows\n%+v\nbut the defaults are\n%+v", got, def)
	}
}
