package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseWorkerHello: a worker's first frame is a hello of version 1
// with formats, or an error naming the worker; and a hello the host would
// answer reads back on the worker's side as the format chosen.
func FuzzParseWorkerHello(f *testing.F) {
	for _, s := range []string{`{"v":1,"kind":"hello","formats":["msgpack","json"]}`, `{"v":2,"kind":"hello","formats":["json"]}`,
		`{"kind":"register"}`, `{"v":1,"kind":"hello","formats":[]}`, `{"v":1,"kind":"hello","formats":"json"}`, "\x81\xa1v\x01", ` {"v":1.0,"kind":"hello","formats":[""]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		formats, err := ParseWorkerHello("the fuzz worker", frame)
		if err != nil {
			if !strings.Contains(err.Error(), "the fuzz worker") {
				t.Fatalf("%q: the error does not name the worker: %v", frame, err)
			}
			return
		}
		if len(formats) == 0 {
			t.Fatalf("%q accepted with no formats", frame)
		}
		chosen, err := Choose("the fuzz worker", "msgpack", formats)
		if err != nil {
			return
		}
		answer, err := json.Marshal(Hello{V: 1, Kind: KindHello, Format: chosen})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ParseHostHello(answer, formats); err != nil || got != chosen {
			t.Fatalf("%q: the host's answer %s reads as %q, %v; want %q", frame, answer, got, err, chosen)
		}
	})
}
