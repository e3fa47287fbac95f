package conformance

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// The python conformance provider is a source file run by a sandboxed
// CPython worker pool: nothing needs building.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimePython,
		Load: func(t *testing.T) (abi.Provider, error) {
			rt, err := python.New(python.DefaultConfig(), nil)
			if err != nil {
				return nil, err
			}
			return rt.Load(context.Background(), abi.Source{Path: filepath.Join(testutil.RepoRoot(t), "samples", "python", "conformance.py")})
		},
	})
}
