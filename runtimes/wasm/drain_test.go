package wasm

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDrain: Close waits for what is in progress before it releases;
// past its wait it says how many are left and releases once they end;
// nothing enters after it; a second Close returns the first one's error.
func TestDrain(t *testing.T) {
	var d Drain
	if err := d.Enter("test loader"); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	err := d.Close("test loader", 20*time.Millisecond, func() { close(released) })
	if err == nil || !strings.Contains(err.Error(), "test loader: 1 load(s) or call(s) still running") {
		t.Fatalf("Close with one call in progress: %v", err)
	}
	select {
	case <-released:
		t.Fatal("released while a call was still in progress")
	default:
	}
	if err := d.Enter("test loader"); abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "the test loader is closed") {
		t.Fatalf("Enter after Close: %v, want Unavailable saying the loader is closed", err)
	}
	if n := d.InFlight(); n != 1 {
		t.Fatalf("in flight %d, want 1 (a refused Enter must not count)", n)
	}
	d.Leave()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("not released after the last call left")
	}
	if err2 := d.Close("test loader", time.Second, func() { t.Error("released twice") }); err2 != err {
		t.Fatalf("second Close: %v, want the first one's error", err2)
	}

	var idle Drain
	ran := false
	if err := idle.Close("idle loader", time.Second, func() { ran = true }); err != nil || !ran {
		t.Fatalf("Close with nothing in progress: err %v, released %v", err, ran)
	}
}
