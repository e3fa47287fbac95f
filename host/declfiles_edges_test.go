package host

import (
	"context"
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

type tsLoader struct{}

func (tsLoader) Runtime() string      { return abi.RuntimeTS }
func (tsLoader) Extensions() []string { return []string{".ts", ".mts"} }
func (tsLoader) Load(context.Context, abi.Source) (abi.Provider, error) {
	return nil, errors.New("not loaded in this test")
}

// TestTypeDeclarationFilesHaveNoLoader: a TypeScript declaration file
// (types.d.ts beside index.ts, the SDK's aios-sdk.d.ts copied beside a
// tool for the editor) was taken by the TS loader, since it ends in .ts:
// in a plugin folder it failed to load ("the provider registers no
// tools"), and in a provider folder it made "several artifacts (main.ts,
// types.d.ts)" of a folder of one tool. A .d.ts, .d.mts or .d.cts holds
// types only, no code: no loader takes it.
func TestTypeDeclarationFilesHaveNoLoader(t *testing.T) {
	h, err := New(Options{Loaders: []abi.Loader{tsLoader{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, name := range []string{"types.d.ts", "plugins/aios-sdk.d.ts", "x.D.TS", "index.d.mts"} {
		if _, ok := h.LoaderFor(name); ok {
			t.Errorf("LoaderFor(%q) found a loader for a type declaration file", name)
		}
	}
	for _, name := range []string{"tool.ts", "d.ts", "x.mts", "plugins/tool.d.ts.d/odd.ts", "build.d.ts.ts"} {
		if _, ok := h.LoaderFor(name); !ok {
			t.Errorf("LoaderFor(%q) found no loader", name)
		}
	}
}
