package js

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestToPrimitiveErrorWithoutGoDump: an object that cannot become a
// primitive (a null-prototype dictionary, Object.create(null), put into a
// string or a sum) throws goja's TypeError "Could not convert &{Object
// 0xc000123 <nil> true map[k0:0 …] …} (*goja.baseObject) to primitive":
// the Go struct behind the object, with its memory addresses and every
// property, which reached the caller and the audit log as the tool's
// error (64 KiB of it for a large dictionary). The error says what node
// says, "Cannot convert object to primitive value", in its message and
// its data.stack.
func TestToPrimitiveErrorWithoutGoDump(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "dict.js", `
aios.registerTool({ name: 'concat', parameters: {} }, () => 'total: ' + Object.create(null));
aios.registerTool({ name: 'template', parameters: {} }, () => {
  const counts = Object.create(null);
  for (let i = 0; i < 1000; i++) counts['word' + i] = i;
  return `+"`counts: ${counts}`"+`;
});
aios.registerTool({ name: 'sum', parameters: {} }, () => 1 + Object.create(null));
`)
	for tool, line := range map[string]int{"concat": 2, "template": 6, "sum": 8} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		want := fmt.Sprintf("TypeError: Cannot convert object to primitive value (at dict.js:%d:", line)
		if !strings.HasPrefix(te.Message, want) {
			t.Errorf("%s: %.300q; want it to begin %q", tool, te.Message, want)
		}
		data, _ := te.Data.(map[string]any)
		stack, _ := data["stack"].(string)
		if !strings.HasPrefix(stack, "TypeError: Cannot convert object to primitive value\n") || strings.Contains(stack, "goja") {
			t.Errorf("%s: data.stack %.300q; want node's words and no Go struct", tool, stack)
		}
	}
}
