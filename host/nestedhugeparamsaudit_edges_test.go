package host

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/runtimes/native"
)

// The params of a native tool's nested call refused as over
// limits.max_params_bytes before they were copied are not kept for the
// record: its params_hash is "" (no hash), not the hash of null, which
// said the call was given null.
func TestNestedHugeParamsRecordNoHash(t *testing.T) {
	te := newTestHost(t, nil) // max_params_bytes: 1024
	huge := make(map[string]any, 2000)
	for i := range 2000 {
		huge[strings.Repeat("k", 8)+string(rune('a'+i%26))+strings.Repeat("x", i%50)] = i
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.hugenestedaudit", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "pass-huge", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			_, err := env.CallTool(ctx, "whoami", "", map[string]any{"huge": huge})
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "pass-huge", map[string]any{}); abi.CodeOf(err) != abi.TooLarge {
		t.Fatalf("nested call with huge params: %v, want TooLarge", err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, _ := audit.ValueHash(nil)
	found := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Tool != "whoami" {
			continue
		}
		found = true
		if r.Outcome != string(abi.TooLarge) || r.ParamsHash != "" {
			t.Errorf("record of the nested call: outcome %s, params_hash %q (null's is %s); want TooLarge, \"\"", r.Outcome, r.ParamsHash, null)
		}
	}
	if !found {
		t.Fatal("no record of the nested call")
	}
}
