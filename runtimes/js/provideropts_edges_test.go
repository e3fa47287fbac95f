package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestProviderOptionTypesChecked: aios.provider({ description: { text:
// '…' } }) (or @Agent's) loaded with the description "[object Object]",
// and a version of 2 as "2", without a word: the SDK ran String(...) over
// them. A provider option that is not a string is now a TypeError naming
// the option, what it got and the line; strings load as before.
func TestProviderOptionTypesChecked(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, c := range map[string]struct{ opts, want string }{
		"desc.js": {"{ id: 'org.test.desc', description: { text: 'x' } }", "option description must be a string, got an object"},
		"ver.js":  {"{ id: 'org.test.ver', version: 2 }", "option version must be a string, got a number"},
		"name.js": {"{ id: 'org.test.name', name: ['A'] }", "option name must be a string, got an array"},
	} {
		path := writeSource(t, name, "aios.provider("+c.opts+");\naios.registerTool({ name: 'a' }, () => 1);\n")
		_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err == nil || !strings.Contains(err.Error(), "TypeError: aios.provider(...): "+c.want) || !strings.Contains(err.Error(), "(at "+name+":1:") {
			t.Errorf("%s: %v\nwant %q at line 1", name, err, c.want)
		}
	}
	p := loadSource(t, rt, "ok.js", "aios.provider({ id: 'org.test.ok', name: 'Ok', version: '1.2.3', description: 'fine' });\naios.registerTool({ name: 'a' }, () => 1);\n")
	if got := p.Describe().Provider; got.Name != "Ok" || got.Version != "1.2.3" || got.Description != "fine" {
		t.Errorf("provider %+v", got)
	}
}
