package discovery

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a test at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestProviderCloseErrorLogged: a provider loaded from a plugin folder
// whose Close failed (a component runtime that could not release its
// instances, a worker that did not exit) had the error kept in a field
// nothing read, so an operator never learnt of it. When the provider is
// unloaded (its file deleted) or replaced, the failure is logged at Warn,
// naming the provider and its file.
func TestProviderCloseErrorLogged(t *testing.T) {
	var logs lockedBuffer
	env := newEnvWith(t, "", nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	path := filepath.Join(env.dir, "leaky.fake")
	writeFake(t, path, fakeSpec{ID: "org.test.leaky", Version: "1.0.0", Tools: []string{"leaky"}, CloseErr: "3 instances still running"})
	testutil.Eventually(t, "leaky loaded", func() bool { return env.h.Registry().Provider("org.test.leaky") != nil })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the close failure logged", func() bool {
		l := logs.String()
		return strings.Contains(l, "3 instances still running") && strings.Contains(l, "org.test.leaky") && strings.Contains(l, "leaky.fake")
	})
}
