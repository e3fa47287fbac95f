package aios

import (
	"errors"
	"strings"
	"testing"
)

// TestCompleteMaxTokensRange: c.Complete with a negative MaxTokens
// left max_tokens out of the request, so the backend's default was used
// without a word (runtimes/wasm TestGoGuestHostCalls sees the host
// asked for MaxTokens 0), where a JS, Python or native provider asking for
// -1 tokens is refused InvalidParams naming it; one past 2^31-1 was the
// host's InvalidRequest. Both are InvalidParams naming MaxTokens, before
// the host is asked; 0 (the default) and 2^31-1 reach the host (here, off
// wasip1: Unavailable).
func TestCompleteMaxTokensRange(t *testing.T) {
	c := &Call{}
	for _, n := range []int{-1, -1 << 40, 1 << 31, 1 << 40} {
		_, err := c.Complete(CompleteRequest{Prompt: "p", MaxTokens: n})
		var e *Error
		if !errors.As(err, &e) || e.Code != InvalidParams || !strings.Contains(e.Message, "MaxTokens") {
			t.Errorf("MaxTokens %d: %v; want InvalidParams naming MaxTokens", n, err)
		}
	}
	for _, n := range []int{0, 1, 1<<31 - 1} {
		_, err := c.Complete(CompleteRequest{Prompt: "p", MaxTokens: n})
		var e *Error
		if !errors.As(err, &e) || e.Code != Unavailable {
			t.Errorf("MaxTokens %d: %v; want the request sent (Unavailable off wasip1)", n, err)
		}
	}
}
