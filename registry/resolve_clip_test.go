package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLongConstraintNotEchoed: an invalid constraint of megabytes is not
// repeated whole in the error (message and data).
func TestLongConstraintNotEchoed(t *testing.T) {
	r := New()
	if err := r.Register(&ProviderRecord{Info: abi.ProviderInfo{ID: "org.test.p", Runtime: abi.RuntimeNative}, Trust: abi.System},
		[]abi.ToolDef{{Name: "t", Version: "1.0.0", Parameters: map[string]any{"type": "object"}}}); err != nil {
		t.Fatal(err)
	}
	long := ">=" + strings.Repeat("1", 1<<20)
	_, err := r.Resolve("t", long)
	te := abi.AsToolError(err, abi.Internal)
	if te.Code != abi.InvalidParams || len(te.Message) > 1024 || !strings.Contains(te.Message, "(1048578 bytes)") {
		t.Fatalf("%s, %d bytes: %.300s", te.Code, len(te.Message), te.Message)
	}
	if c, _ := te.Data.(map[string]any)["constraint"].(string); len(c) > 256 {
		t.Fatalf("data holds %d bytes of the constraint", len(c))
	}
	// A short bad constraint is shown whole, with the parser's reason.
	_, err = r.Resolve("t", "^^1")
	if te := abi.AsToolError(err, abi.Internal); te.Code != abi.InvalidParams || !strings.Contains(te.Message, `"^^1"`) {
		t.Fatalf("%v", err)
	}
}

// TestUnknownNameQuoted: the name of a tool not found was put between
// quotes as it came, so a name holding a quote or a newline
// (`a" not found; did you mean "b`) made a message that read as another;
// it is quoted with escapes, as the other not-found messages are.
func TestUnknownNameQuoted(t *testing.T) {
	r := New()
	_, err := r.Resolve("x\" not found\nfake: \"y", "")
	te := abi.AsToolError(err, abi.Internal)
	if te.Code != abi.NotFound || strings.Contains(te.Message, "\n") || !strings.Contains(te.Message, `tool "x\" not found\nfake: \"y" not found`) {
		t.Fatalf("%s: %q; want NotFound with the name quoted and escaped", te.Code, te.Message)
	}
}
