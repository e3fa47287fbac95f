package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestDeprecationMisspeltMemberRefused: a tool definition's members are
// checked for misspellings (paramaters fails the load naming parameters),
// but those of its deprecation note were not: deprecation: { since:
// '1.0.0', replacment: 'v2' } loaded, and the registry and every caller
// were told the tool is deprecated with nothing of what replaces it, the
// replacement lost without a word. A member other than since, message and
// replacement (aios-sdk.d.ts's) fails the load naming the closest one and
// the line, as a misspelt definition member does.
func TestDeprecationMisspeltMemberRefused(t *testing.T) {
	rt := newRuntime(t, Options{})
	path := writeSource(t, "dep.ts", `
import { registerTool } from 'aios-sdk';
registerTool({ name: 'old', deprecation: { since: '1.0.0', replacment: 'new' } }, () => ({}));
`)
	_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
	if err == nil {
		t.Fatal("loaded, want an error naming the misspelt deprecation member")
	}
	msg := err.Error()
	for _, want := range []string{`"replacment"`, "did you mean replacement?", "(at dep.ts:3:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q: want it to say %s", msg, want)
		}
	}
	// The members it has are still taken.
	p := loadSource(t, rt, "dep2.ts", `
import { registerTool } from 'aios-sdk';
registerTool({ name: 'old', deprecation: { since: '1.0.0', message: 'slow', replacement: 'new' } }, () => ({}));
`)
	if d := p.Describe().Tools[0].Deprecation; d == nil || d.Replacement != "new" || d.Message != "slow" {
		t.Fatalf("deprecation %+v, want since, message and replacement kept", d)
	}
}
