package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// namingLoader fails as the js and wasm runtimes do: "load PATH: …".
type namingLoader struct{ cause error }

func (namingLoader) Runtime() string      { return "namert" }
func (namingLoader) Extensions() []string { return []string{".namep"} }
func (l namingLoader) Load(_ context.Context, src abi.Source) (abi.Provider, error) {
	return nil, fmt.Errorf("load %s: %w", src.Path, l.cause)
}

// TestLoadErrorNamesTheFileOnce: a JS file with a syntax error failed to
// load with "load X (js runtime): load X: X:1:45: Expected …": the
// runtime named the file as the host does, and run's summary put a
// fourth "X: " in front. The host leaves out the loader's own "load X: ",
// and the cause is still what the loader wrapped.
func TestLoadErrorNamesTheFileOnce(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.namep")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cause := fmt.Errorf("%s:1:45: Expected \")\" but found \";\"", f)
	h, err := New(Options{Loaders: []abi.Loader{namingLoader{cause}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.LoadProvider(context.Background(), f, ProviderMeta{})
	want := "load " + f + " (namert runtime): " + f + ":1:45: Expected"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), f) != 2 {
		t.Errorf("LoadProvider: %v; want it to start %q, the file named twice (its position the second)", err, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("LoadProvider: %v does not wrap the loader's cause", err)
	}
}
