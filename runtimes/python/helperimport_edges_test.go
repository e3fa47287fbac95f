package python_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestLoadErrorInHelperModuleNamesItsLine: an exception raised while the
// tool file imported a module of its folder (helpers.py reading a file
// that is not there at its line 4) was named at the tool file's import
// line alone, "tool.py:2: FileNotFoundError while loading: …", though a
// call's exception names the innermost line of the tool's folder. The load
// error now adds where in the folder it was raised, "(at helpers.py:4)".
func TestLoadErrorInHelperModuleNamesItsLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	p := writeTool(t, "tool.py", "from aios_sdk import tool\nimport helpers\n\n@tool(name='h')\ndef h(params):\n    return helpers.X\n")
	helpers := "import os\nX = 1\n\nCONFIG = open(os.path.join(os.path.dirname(__file__), 'config.json')).read()\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "helpers.py"), []byte(helpers), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)})
	checkLoadErr(t, err, []string{"tool.py:2: FileNotFoundError while loading: [Errno 2] No such file or directory:", "config.json' (at helpers.py:4)"})
	// An exception of the tool file itself is named at its line alone.
	q := writeTool(t, "own.py", "from aios_sdk import tool\nimport json\njson.loads('{')\n")
	_, err = h.LoadFile(context.Background(), q, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(q)})
	checkLoadErr(t, err, []string{"own.py:3: JSONDecodeError while loading: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"})
	if err != nil && strings.Contains(err.Error(), "(at ") {
		t.Errorf("an exception of the tool file got a location of another file: %v", err)
	}
}
