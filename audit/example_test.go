package audit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aios-host/aios-host/audit"
)

func ExampleWriter() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "audit.jsonl")

	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		panic(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "echo", Params: map[string]any{"value": 1}, Result: map[string]any{"value": 1}, Latency: time.Millisecond})
	w.Log(audit.Entry{CallID: "c2", Caller: "cli", Tool: "echo", Outcome: "InvalidParams", Error: "missing value"})
	if err := w.Close(); err != nil { // drains and fsyncs
		panic(err)
	}

	f, _ := os.Open(path)
	defer f.Close()
	n, err := audit.Verify(f)
	fmt.Println(n, err)
	// Output: 2 <nil>
}
