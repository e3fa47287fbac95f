package config

import (
	"strings"
	"testing"
)

// TestPathEnvVariableRefused: the configuration expands no environment
// variables, so data: $HOME/aios made a folder named "$HOME" in the
// working directory, silently, and put the spaces and the audit log in
// it (plugins: [${HOME}/plugins] loaded nothing, with only a warning that
// the folder was missing). A path setting naming a variable is refused,
// naming the key and the variable, as "~name/" of no account is.
func TestPathEnvVariableRefused(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"data: $HOME/aios\n", `c.yaml:1: data: "$HOME/aios": `},
		{"data: /srv\nplugins: [/opt/p, \"${XDG_DATA_HOME}/aios\"]\n", `c.yaml:2: plugins[1]: "${XDG_DATA_HOME}/aios": `},
		{"data: /srv\nspaces: /var/$USER/spaces\n", `c.yaml:2: spaces: "/var/$USER/spaces": `},
		{"data: /srv\naudit:\n  path: $STATE/audit.jsonl\n", `c.yaml:3: audit.path: "$STATE/audit.jsonl": `},
		{"data: /srv\ntrust:\n  folders:\n    $HOME/p: Verified\n", `c.yaml:4: trust.folders["$HOME/p"]: "$HOME/p": `},
		{"data: /srv\nspaces: '%APPDATA%\\aios'\n", `c.yaml:2: spaces: "%APPDATA%\\aios": `},
	} {
		_, err := Parse([]byte(tc.file), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "environment variable") {
			t.Errorf("%q:\n got %v\nwant %s… environment variable …", tc.file, err, tc.want)
		}
	}
	// A "$" that names no variable is a folder name like another.
	for _, ok := range []string{"data: /srv/a$\n", "data: /srv/$1\n", "data: /srv/cost$/x\n", "data: /srv/100%\n"} {
		if _, err := Parse([]byte(ok), "c.yaml"); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
