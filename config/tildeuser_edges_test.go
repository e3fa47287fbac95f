package config

import (
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTildeUserExpanded: "~name/…", a user's home folder as a shell reads
// it, was left as it was: data: ~aios/state made a folder named "~aios"
// in the working directory, silently, and put the spaces and the audit
// log in it. It is name's home folder; a name no account has is refused,
// naming the key, rather than made into such a folder.
func TestTildeUserExpanded(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no ~name here")
	}
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) || u.Username == "" {
		t.Skipf("no account entry for this user: %v", err)
	}
	if p := ExpandHome("~" + u.Username + "/state"); p != filepath.Join(u.HomeDir, "state") {
		t.Errorf("~%s/state: %q, want %q", u.Username, p, filepath.Join(u.HomeDir, "state"))
	}
	c, err := Parse([]byte("data: ~"+u.Username+"/state\nplugins: [~"+u.Username+"/plugins]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Data != filepath.Join(u.HomeDir, "state") || c.Plugins[0] != filepath.Join(u.HomeDir, "plugins") {
		t.Errorf("data %q, plugins %q", c.Data, c.Plugins)
	}
	_, err = Parse([]byte("data: /srv/aios\naudit:\n  path: ~no-such-user-p192/audit.jsonl\n"), "c.yaml")
	want := `c.yaml:3: audit.path: "~no-such-user-p192/audit.jsonl": no account is named no-such-user-p192`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("unknown user:\n got %v\nwant %s…", err, want)
	}
}
