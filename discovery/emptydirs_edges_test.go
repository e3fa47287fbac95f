package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestEmptyDiscoveryDirRefused: an empty entry of discovery.dirs or
// desktop_dirs ("" left by a template, an unset variable pasted in) was
// taken as the working directory, whose every file the host then tried
// to load as a card or tool.aios.yaml; plugins: [""] is refused.
func TestEmptyDiscoveryDirRefused(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"discovery:\n  dirs:\n    - /opt/adapters\n    - \"\"\n", `c.yaml:4: discovery.dirs[1]: empty folder name`},
		{"discovery:\n  desktop_dirs: [\"\"]\n", `c.yaml:2: discovery.desktop_dirs[0]: empty folder name`},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
}
