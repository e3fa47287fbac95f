package component

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// TestInspectSharedTypesUsed: the WIT `inspect` printed for a component
// whose interfaces share types (wasi:cli/stdout's output-stream is
// wasi:io/streams') repeated each shared type in every interface naming
// it; a resource was printed with its methods each time, and those name
// types of the defining interface only, so the WIT did not parse ("type
// `stream-error` does not exist"). A type an imported interface defines is
// now brought into the others with `use`, as WIT writes it, and the WIT
// parses again.
func TestInspectSharedTypesUsed(t *testing.T) {
	in, err := Inspect(context.Background(), sample(t, "kitchen"), "kitchen.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(in.WIT, "resource output-stream {"); n != 1 {
		t.Errorf("resource output-stream defined %d times:\n%s", n, in.WIT)
	}
	for _, w := range []string{"use wasi:io/streams@0.2.12.{output-stream};", "transform: func(item: item) -> result<item, string>;"} {
		if !strings.Contains(in.WIT, w) {
			t.Errorf("WIT lacks %q:\n%s", w, in.WIT)
		}
	}
	if _, err := wit.ParseSource("kitchen.wit", in.WIT, wit.Options{}); err != nil {
		t.Errorf("printed WIT does not parse: %v\n%s", err, in.WIT)
	}
}
