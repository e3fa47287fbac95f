package server

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrorsNameFileLine: server.LoadConfig's own checks
// (metrics_auth, uids, tokens) named the key but not the file and line,
// unlike every other configuration error; the CLI put them in front only
// when the message began with a bare key path, which
// "server.tokens[0] (agent cli): give exactly one of …" did not, and a
// bad uid was placed at the line of uids:, not of the uid.
func TestConfigErrorsNameFileLine(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"server:\n  metrics_auth: tokn\n", `t.yaml:2: server.metrics_auth: "tokn": want loopback, token or none`},
		{"server:\n  uids:\n    \"0\": cli\n    bob: cli\n", `t.yaml:4: server.uids.bob: "bob" is not a numeric uid`},
		{"server:\n  tokens:\n    - {token: a}\n", `t.yaml:3: server.tokens[0]: agent is required`},
		{"server:\n  tokens:\n    - {agent: cli, token: a}\n    - {agent: cli}\n", `t.yaml:4: server.tokens[1]: give exactly one of token, token_env, token_file (agent cli)`},
		{"server:\n  tokens:\n    - {agent: cli, token: a, name: x}\n    - {agent: cli, token: b, name: x}\n", `t.yaml:4: server.tokens[1]: name "x" is also server.tokens[0]'s`},
	} {
		_, err := LoadConfig(mustParse(t, tc.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
}

// TestConfigHomePaths: "~/" in server.socket, server.signing_key and
// server.tokens[].token_file was taken literally: `socket: ~/aios.sock`
// made a folder named "~" in the working directory and listened there,
// while data, plugins and discovery.dirs read "~/" as the home folder.
func TestConfigHomePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	c, err := LoadConfig(mustParse(t, "server:\n  socket: ~/aios.sock\n  signing_key: ~/k.pem\n  tokens:\n    - {agent: cli, token_file: ~/tok}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Socket != filepath.Join(home, "aios.sock") || c.SigningKey != filepath.Join(home, "k.pem") || c.Tokens[0].TokenFile != filepath.Join(home, "tok") {
		t.Errorf("socket %q, signing_key %q, token_file %q: want them in %s", c.Socket, c.SigningKey, c.Tokens[0].TokenFile, home)
	}
}

// TestTinyConnTimeoutsRefused: server.read_timeout, idle_timeout or
// write_timeout of 1ns (or 1ms written for 1m) was taken, and every
// socket connection was closed at once, the client told only that the
// server closed it and nothing in the log (found by p116). Below 10ms is
// refused naming the file, line and key; 10ms is taken.
func TestTinyConnTimeoutsRefused(t *testing.T) {
	for _, key := range []string{"read_timeout", "idle_timeout", "write_timeout"} {
		for _, v := range []string{"1ns", "1ms", "9ms"} {
			_, err := LoadConfig(mustParse(t, "server:\n  "+key+": "+v+"\n"))
			if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:2: server."+key+": ") || !strings.Contains(err.Error(), "below 10ms") {
				t.Errorf("%s: %s: %v", key, v, err)
			}
		}
		if _, err := LoadConfig(mustParse(t, "server:\n  "+key+": 10ms\n")); err != nil {
			t.Errorf("%s: 10ms: %v", key, err)
		}
	}
}
