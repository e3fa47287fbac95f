package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// checkEnv is an Env that says whether it may use Inference.
type checkEnv struct {
	abi.Env
	call  abi.ToolCall
	allow bool
}

func (e *checkEnv) Call() *abi.ToolCall { return &e.call }

func (e *checkEnv) Check(c abi.Capability) error {
	if c.Kind == abi.CapInference && e.allow {
		return nil
	}
	return abi.Errorf(abi.CapabilityDenied, "caller lacks %s", c)
}

// plainEnv is an Env that cannot say (not an abi.Checker).
type plainEnv struct{ abi.Env }

// TestSamplingPick: with one call in flight a sampling request is that
// call's; with several it is the oldest one's when every one of them may
// use Inference, and refused, naming the call, when one may not (or
// cannot say).
func TestSamplingPick(t *testing.T) {
	var f inflight
	if _, err := f.pick(); err == nil || !strings.Contains(err.Error(), "no call") {
		t.Fatalf("nothing in flight: %v", err)
	}
	a := &checkEnv{call: abi.ToolCall{ID: "a"}, allow: true}
	b := &checkEnv{call: abi.ToolCall{ID: "b"}, allow: true}
	c := &checkEnv{call: abi.ToolCall{ID: "c"}, allow: false}
	doneA := f.add(context.Background(), &a.call, a)
	if fl, err := f.pick(); err != nil || fl.env != a {
		t.Fatalf("one call: %v, %v", fl.env, err)
	}
	doneB := f.add(context.Background(), &b.call, b)
	for range 20 { // map order varies: the oldest is chosen every time
		if fl, err := f.pick(); err != nil || fl.env != a {
			t.Fatalf("two allowed calls: %v, %v; want the oldest, a", fl.env, err)
		}
	}
	doneC := f.add(context.Background(), &c.call, c)
	if _, err := f.pick(); err == nil || !strings.Contains(err.Error(), "call c may not use Inference") {
		t.Fatalf("one call may not use Inference: %v", err)
	}
	doneC()
	doneA()
	if fl, err := f.pick(); err != nil || fl.env != b {
		t.Fatalf("after a ended: %v, %v; want b", fl.env, err)
	}
	p := &plainEnv{}
	doneP := f.add(context.Background(), &abi.ToolCall{ID: "p"}, p)
	if _, err := f.pick(); err == nil || !strings.Contains(err.Error(), "cannot be tied") {
		t.Fatalf("an Env that cannot say: %v", err)
	}
	doneP()
	doneB()
}
