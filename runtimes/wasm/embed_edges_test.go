package wasm

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// probeLoader is a Loader the test closes itself (newTestLoader closes
// it at cleanup, which the tests below do first).
func probeLoader(t *testing.T) *Loader {
	t.Helper()
	l, err := NewLoader(Options{Config: Config{DeadlineGranularity: time.Millisecond,
		CacheDir: filepath.Join(os.TempDir(), "aios-wasm-test", "cache")}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitBusy waits until p has a call in a guest.
func waitBusy(t *testing.T, p *Provider) {
	t.Helper()
	for range 5000 {
		p.liveMu.Lock()
		busy := false
		for inst := range p.live {
			busy = busy || inst.deadline.Load() > 0
		}
		p.liveMu.Unlock()
		if busy {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the call never reached the guest")
}

// Loader.Close stopped the watchdog and closed the runtimes under a call
// still running in a guest: the guest (a loop) was never interrupted, so
// the call ran on past its deadline for ever and its caller hung (an
// embedder closing the host and then the loader, as the docs said). Close
// now interrupts such calls (Unavailable) and waits for them to leave the
// guest before it releases anything.
func TestLoaderCloseStopsCallsInFlight(t *testing.T) {
	l := probeLoader(t)
	pr, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.closeloop", 2))})
	if err != nil {
		t.Fatal(err)
	}
	p := pr.(*Provider)
	done := make(chan error, 1)
	go func() {
		_, err := call(p, newFakeEnv(p, 5), "loop", nil, time.Hour)
		done <- err
	}()
	waitBusy(t, p)
	_ = p.Close()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "closing") {
			t.Fatalf("the call in flight answered %v, want Unavailable saying the runtime is closing", err)
		}
	default:
		t.Fatal("Close returned while a call was still running in a guest")
	}
}

// Loader.Close closed its watchdog's channel a second time and panicked;
// after Close, Loads and calls of providers not yet closed went on with
// no watchdog. Close is now idempotent (concurrent calls too) and both
// are refused.
func TestLoaderCloseTwice(t *testing.T) {
	l := probeLoader(t)
	path := buildWAT(t, basicWAT("org.test.closetwice", 2))
	pr, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := l.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	if _, err := l.Load(context.Background(), abi.Source{Path: path}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Load after Close: %v, want an error saying the loader is closed", err)
	}
	p := pr.(*Provider)
	if _, err := call(p, newFakeEnv(p, 5), "const", nil, time.Second); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("call after the loader closed: %v, want Unavailable", err)
	}
}
