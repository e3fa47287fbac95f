package aios

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// writeOnlyKey can be written as a map key (MarshalText) but not read.
type writeOnlyKey struct{ X, Y int }

func (k writeOnlyKey) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d,%d", k.X, k.Y), nil }

// readOnlyKey can be read as a map key (UnmarshalText) but not written.
type readOnlyKey struct{ X, Y int }

func (k *readOnlyKey) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "%d,%d", &k.X, &k.Y)
	return err
}

// ptrWriteKey has MarshalText on its pointer, which a map key (not
// addressable) does not have.
type ptrWriteKey struct{ X int }

func (k *ptrWriteKey) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d", k.X), nil }

// TestMapKeyTextMethodForItsDirection: HandleFunc's type check took a map
// key type with either MarshalText or UnmarshalText as fine for both
// params and result, but encoding/json decodes a key only through
// UnmarshalText and encodes one only through MarshalText: a params type
// map[writeOnlyKey]int loaded and every call failed as the caller's
// InvalidParams, a result type map[readOnlyKey]int loaded and every call
// failed; so did a result type map[ptrWriteKey]int, whose MarshalText is
// on the pointer, which a map key is not. Each panics at registration now,
// naming the key type.
func TestMapKeyTextMethodForItsDirection(t *testing.T) {
	var in map[writeOnlyKey]int
	if err := json.Unmarshal([]byte(`{"1,2":3}`), &in); err == nil {
		t.Fatal("encoding/json decoded a key without UnmarshalText: the premise of this test is wrong")
	}
	if _, err := json.Marshal(map[readOnlyKey]int{{1, 2}: 3}); err == nil {
		t.Fatal("encoding/json encoded a key without MarshalText: the premise of this test is wrong")
	}
	if _, err := json.Marshal(map[ptrWriteKey]int{{1}: 3}); err == nil {
		t.Fatal("encoding/json encoded a key with MarshalText on its pointer: the premise of this test is wrong")
	}
	if got := registerPanic(t, "probe-key-ptr", func() {
		HandleFunc(Tool{Name: "probe-key-ptr"}, func(c *Call, in any) (map[ptrWriteKey]int, error) { return nil, nil })
	}); !strings.Contains(got, "ptrWriteKey") {
		t.Errorf("result map[ptrWriteKey]int: %q, want a panic naming the key type", got)
	}
	if got := registerPanic(t, "probe-key-in", func() {
		HandleFunc(Tool{Name: "probe-key-in"}, func(c *Call, in map[writeOnlyKey]int) (any, error) { return nil, nil })
	}); !strings.Contains(got, "writeOnlyKey") {
		t.Errorf("params map[writeOnlyKey]int: %q, want a panic naming the key type", got)
	}
	if got := registerPanic(t, "probe-key-out", func() {
		HandleFunc(Tool{Name: "probe-key-out"}, func(c *Call, in any) (map[readOnlyKey]int, error) { return nil, nil })
	}); !strings.Contains(got, "readOnlyKey") {
		t.Errorf("result map[readOnlyKey]int: %q, want a panic naming the key type", got)
	}
	// The direction each can serve still loads.
	if got := registerPanic(t, "probe-key-ok", func() {
		HandleFunc(Tool{Name: "probe-key-ok"}, func(c *Call, in map[readOnlyKey]int) (map[writeOnlyKey]int, error) { return nil, nil })
	}); got != "" {
		t.Errorf("params map[readOnlyKey]int, result map[writeOnlyKey]int: refused: %s", got)
	}
}
