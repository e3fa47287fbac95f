package python

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// resultFrames are result frames as the SDK writes them, and frames the
// fast path must leave to the general decoder.
var resultFrames = []string{
	`{"v":1,"kind":"result","id":"py-1","result":{"call_id":"py-1","value":{"value":"hello"}}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":null}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":{"a":[1,-2,3.5,1e3,-0,0.25e-2,true,false,null,"ü€𝄞",{},[]]}}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":{"big":123456789012345678901234,"max":9223372036854775807,"min":-9223372036854775808}}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":{"dup":1,"dup":2}}}`,
	// Left to the general decoder:
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":{"esc":"a\"b\u00e9\n"}}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":"bad utf8 ` + "\xff" + `"}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":1e400}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":01}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":1.}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":[1,]}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"d","value":1}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","error":{"code":"ProviderError","message":"m"}}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":1}} `,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":1}}x`,
	`{"v":1,"kind":"log","log":{"level":"info","message":"m"}}`,
	`{"v":1,"kind":"result","id":"c","result":{"call_id":"c","value":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`,
}

// TestDecodeResultFrame: whatever the fast path accepts, it decodes exactly
// as abi.JSON does; what it refuses is left to abi.JSON.
func TestDecodeResultFrame(t *testing.T) {
	fast := 0
	for _, f := range resultFrames {
		if checkResultFrame(t, []byte(f)) {
			fast++
		}
	}
	if fast != 5 {
		t.Errorf("the fast path took %d of the frames, want the first 5", fast)
	}
}

func checkResultFrame(t *testing.T, frame []byte) bool {
	t.Helper()
	got, ok := decodeResultFrame(frame)
	if !ok {
		return false
	}
	var want abi.Envelope
	if err := abi.JSON.Unmarshal(frame, &want); err != nil {
		t.Fatalf("fast path accepted %q, which abi.JSON refuses: %v", frame, err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("frame %q: fast path %#v, abi.JSON %#v", frame, got.Result, want.Result)
	}
	return true
}

func FuzzDecodeResultFrame(f *testing.F) {
	for _, s := range resultFrames {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		checkResultFrame(t, frame)
	})
}

func BenchmarkDecodeResultFrame(b *testing.B) {
	frame := []byte(resultFrames[0])
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := decodeResultFrame(frame); !ok {
			b.Fatal("not decoded")
		}
	}
}

func BenchmarkDecodeResultFrameGeneral(b *testing.B) {
	frame := []byte(resultFrames[0])
	b.ReportAllocs()
	for b.Loop() {
		var env abi.Envelope
		if err := abi.JSON.Unmarshal(frame, &env); err != nil {
			b.Fatal(err)
		}
	}
}
