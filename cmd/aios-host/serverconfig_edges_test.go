package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// list, call and diff find a running host's socket from server.socket, but
// a server section that did not load (server.sokcet, a negative size) was
// dropped without a word: they looked on the default socket instead, found
// nothing, and loaded the plugins in this process, beside the host running
// on the socket the section meant (run refuses such a section). They say
// what is wrong with it, as run does; --socket does without it.
func TestClientCommandsReportBadServerSection(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(t.TempDir(), "h.sock")
	for _, body := range []string{
		"server:\n  sokcet: " + sock + "\n",
		"server:\n  socket: " + sock + "\n  max_batch: -1\n",
	} {
		cfg := writeConfig(t, body)
		for _, args := range [][]string{
			{"list"},
			{"call", "analyze-complexity", `{"object_id":"sha256:` + strings.Repeat("0", 64) + `"}`},
			{"diff", "analyze-complexity"},
		} {
			code, out, errs := e.run("", append(args, "--config", cfg)...)
			if code != exitFail || !strings.Contains(errs, "config.yaml:") || !strings.Contains(errs, "server.") || !strings.Contains(errs, "--socket") {
				t.Errorf("%s with %q: exit %d, stdout %q, stderr %q; want exit 1 naming the server section's mistake", args[0], body, code, out, errs)
			}
		}
		// --socket needs no server section: a socket nobody answers on.
		if code, _, errs := e.run("", "list", "--config", cfg, "--socket", sock); code != exitFail || !strings.Contains(errs, "no host answers on") {
			t.Errorf("list --socket with %q: exit %d %q", body, code, errs)
		}
	}
}
