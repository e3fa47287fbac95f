package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestSpaceReadRateLimitNamesRead: a read outside any tool (an MCP
// client's resources/read, host.ReadSpaceAs) refused by the agent's rate
// limit said only `rate limit of caller "reader" reached (…)`, naming
// neither what was refused nor the object, where a refused call names the
// tool it refused (docs/pipeline.md "Rate limits"); through an MCP client
// reading several resources nothing told which read it was. The message
// now begins with the read: `read of object sha256:… in space source: `.
func TestSpaceReadRateLimitNamesRead(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["reader"] = config.Agent{Grants: []string{"ReadSpace(source)"}, Rate: &config.Rate{PerSecond: 0.001, Burst: 1}}
	})
	id, err := te.spaces.Put("source", []byte("package main"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := te.h.ReadSpaceAs(ctx, "reader", "source", id); err != nil {
		t.Fatalf("first read: %v", err)
	}
	_, err = te.h.ReadSpaceAs(ctx, "reader", "source", id)
	te2, ok := err.(*abi.ToolError)
	if !ok || te2.Code != abi.RateLimited {
		t.Fatalf("second read of a burst of 1: %v, want RateLimited", err)
	}
	want := "read of object " + id + " in space source: rate limit of caller \"reader\" reached (agents.reader.rate"
	if !strings.HasPrefix(te2.Message, want) {
		t.Errorf("refused read says %q, want it to begin %q", te2.Message, want)
	}
	if d, _ := te2.Data.(map[string]any); d["limit"] != "agents.reader.rate" {
		t.Errorf("data = %#v, want limit agents.reader.rate", te2.Data)
	}
}

// TestSpaceReadCancelledNamesRead: a read outside any tool whose context
// had ended (its MCP client gave up) was refused with the context's own
// text alone, "context canceled", naming neither the read nor its object,
// as a call cancelled before it started names its tool. It now says
// which read was cancelled before it started.
func TestSpaceReadCancelledNamesRead(t *testing.T) {
	te := newTestHost(t, nil)
	id, err := te.spaces.Put("source", []byte("package main"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = te.h.ReadSpaceAs(ctx, "alice", "source", id)
	if abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("read under an ended context: %v, want Cancelled", err)
	}
	if want := "read of object " + id + " in space source was cancelled before it started"; !strings.Contains(err.Error(), want) {
		t.Errorf("cancelled read says %q, want %q", err, want)
	}
}
