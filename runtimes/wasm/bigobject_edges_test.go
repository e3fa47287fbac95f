package wasm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSpaceReadAnswerTooLargeNamesObject: a guest's space_read of an
// object whose answer passes runtimes.wasm.max_message_bytes (a 100 MB
// object, under max_object_bytes) failed "TooLarge: space_read: the
// answer is 100000114 bytes, above runtimes.wasm.max_message_bytes",
// naming neither the object nor its space. The error names both and the
// object's size, in both codecs.
func TestSpaceReadAnswerTooLargeNamesObject(t *testing.T) {
	id := "sha256:" + strings.Repeat("ab", 32)
	value := map[string]any{"space": "photos", "id": id, "size": int64(300), "data": make([]byte, 300)}
	for _, useJSON := range []bool{true, false} {
		buf := encodeAnswer(nil, opSpaceRead, value, nil, useJSON, 100)
		var msg string
		if useJSON {
			var res struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(buf, &res); err != nil {
				t.Fatal(err)
			}
			msg = res.Error.Code + ": " + res.Error.Message
		} else {
			msg = string(buf) // MessagePack: the message's text is in it as it is
		}
		for _, want := range []string{"TooLarge", id, `"photos"`, "300 bytes", "max_message_bytes"} {
			if !strings.Contains(msg, want) {
				t.Errorf("json=%v: %q; want it to name %q", useJSON, msg, want)
			}
		}
	}
}
