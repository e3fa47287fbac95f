package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestDefaultSocketLongDataDirDocumented: the default socket is
// <data>/aios-host.sock only while that path fits a unix socket (100
// bytes); past it the host listens, and list and call look, at
// $TMPDIR/aios-host-<uid>-<hash>.sock, one per data folder. The docs gave
// <data>/aios-host.sock alone, so a user with a long data path looked for
// a socket that was not there. docs/discovery.md names the other path.
func TestDefaultSocketLongDataDirDocumented(t *testing.T) {
	short := filepath.Join(string(filepath.Separator), "srv", "aios")
	if got := DefaultSocket(&config.Config{Data: short}); got != filepath.Join(short, SocketName) {
		t.Fatalf("DefaultSocket(%s) = %s; want %s", short, got, filepath.Join(short, SocketName))
	}
	long := filepath.Join(string(filepath.Separator), strings.Repeat("d", 60), strings.Repeat("e", 60))
	a := DefaultSocket(&config.Config{Data: long})
	b := DefaultSocket(&config.Config{Data: long + "2"})
	if filepath.Dir(a) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(a), "aios-host-") || !strings.HasSuffix(a, ".sock") || a == b {
		t.Fatalf("DefaultSocket of two long data folders = %s, %s; want two sockets in %s named aios-host-<uid>-<hash>.sock", a, b, os.TempDir())
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "discovery.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "aios-host-<uid>-<hash>.sock") {
		t.Fatal("docs/discovery.md does not say where the default socket of a data folder whose <data>/aios-host.sock is over 100 bytes is ($TMPDIR/aios-host-<uid>-<hash>.sock)")
	}
}
