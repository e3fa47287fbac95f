package js

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/config"
)

// TestDocumentedJSConfig: docs/js.md named the keys of runtimes.js
// but gave the defaults of few of them (memory_budget_mib, max_call_stack,
// default_timeout and load_timeout had theirs in the Go source only, and
// wire was left out of the list). It has a block of every key with its
// default; this keeps the block decoding strictly into Config, naming
// every key, with the values the runtime uses when the section is empty.
func TestDocumentedJSConfig(t *testing.T) {
	b, err := os.ReadFile("../../docs/js.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "Every key, with its default:\n\n```yaml\n")
	if !ok {
		t.Fatal("docs/js.md has no block of every runtimes.js key with its default")
	}
	block, _, _ := strings.Cut(after, "```")
	var doc struct {
		Runtimes struct {
			JS yaml.Node `yaml:"js"`
		} `yaml:"runtimes"`
	}
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatalf("docs/js.md's runtimes.js block: %v", err)
	}
	var got Config
	if err := config.DecodeSection(doc.Runtimes.JS, &got); err != nil {
		t.Fatalf("docs/js.md's runtimes.js block does not decode strictly: %v", err)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("docs/js.md's runtimes.js block is refused: %v", err)
	}
	named := map[string]bool{}
	for i := 0; i+1 < len(doc.Runtimes.JS.Content); i += 2 {
		named[doc.Runtimes.JS.Content[i].Value] = true
	}
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		if k, _, _ := strings.Cut(ct.Field(i).Tag.Get("yaml"), ","); k != "" && !named[k] {
			t.Errorf("docs/js.md's runtimes.js block leaves out %s", k)
		}
	}
	shown, def := got.ToOptions(nil).withDefaults(), Config{}.ToOptions(nil).withDefaults()
	shown.Logger, def.Logger = nil, nil
	if !reflect.DeepEqual(shown, def) {
		t.Errorf("docs/js.md's runtimes.js block gives\n%+v\nbut the defaults are\n%+v", shown, def)
	}
}
