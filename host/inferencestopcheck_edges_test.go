package host

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestInferenceStopSequencesChecked: stop sequences reach the backend as
// chat-completions' "stop"; an empty one (which a backend reads as
// stopping at once, or refuses) or one not valid UTF-8 (JSON would send
// U+FFFD, a sequence the tool did not give) is refused naming it, the
// backend not asked.
func TestInferenceStopSequencesChecked(t *testing.T) {
	var mu sync.Mutex
	var asked []any
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stop any `json:"stop"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		asked = append(asked, body.Stop)
		mu.Unlock()
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	var stop []string
	p := native.New(abi.ProviderInfo{ID: "org.probe.stop", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "stop", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		r, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "hi", Stop: stop})
		return r.Text, err
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"a", ""}, {"\xff"}} {
		stop = bad
		_, err := te.call("alice", "stop", nil)
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "stop") {
			t.Errorf("stop %q: %v; want InvalidParams naming stop", bad, err)
		}
	}
	stop = []string{"\n\n", "END"}
	if v, err := te.call("alice", "stop", nil); err != nil || v != "hi" {
		t.Fatalf("stop %q: %v %v", stop, v, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []any{[]any{"\n\n", "END"}}; !reflect.DeepEqual(asked, want) {
		t.Fatalf("the backend was asked with stop %q; want %q once", asked, want)
	}
}
