package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestCardDirsFileNamesDiscoveryDirs: a file given under discovery.dirs
// (a card itself, not its folder) was refused at Start as a "plugin folder",
// which sent the operator to plugins: and --plugins, which were right. It is
// named as a folder of discovery.dirs.
func TestCardDirsFileNamesDiscoveryDirs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tool.aios.yaml")
	if err := os.WriteFile(file, []byte("name: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("plugins: ["+filepath.Join(dir, "plugins")+"]\ndata: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\ndiscovery:\n  dirs: ["+file+"]\n  desktop_dirs: []\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{&fakeLoader{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	d, err := New(Options{Host: h, Config: cfg, Once: true})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Start(context.Background())
	_ = d.Close()
	if err == nil || !strings.Contains(err.Error(), "(discovery.dirs) "+file+" is a file, not a folder") {
		t.Fatalf("Start with a file under discovery.dirs: %v", err)
	}
}
