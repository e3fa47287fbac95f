package trust

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPinSkipsLargeJSONUnread: pinning a folder's files read every .json
// whole to tell whether it is a card (left out of the pins), a data file
// of gigabytes too, all in memory (p187's leftover). A file past the size
// of a card (1 MiB, which discovery refuses a card over) is no card: it is
// pinned as data, unread but for its digest.
func TestPinSkipsLargeJSONUnread(t *testing.T) {
	dir := t.TempDir()
	big := `{"adapter": {"id": "org.x", "protocol_version": "0.3.0"}, "rows": "` + strings.Repeat("x", maxCardFile) + `"}`
	for name, data := range map[string]string{
		"tool.js": "main", "draft.json": `{"adapter": {"id": "org.x", "protocol_version": "0.3.0"}}`, "rows.json": big,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]any
	_ = json.Unmarshal(readCard(t), &m)
	m["artifact"] = map[string]any{"path": "tool.js"}
	card, _ := json.Marshal(m)
	pinned, _, err := PinArtifact(card, dir, "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := ArtifactOf(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if got := pin.FileNames(); !reflect.DeepEqual(got, []string{"rows.json"}) {
		t.Fatalf("pinned files %v; want the large JSON file pinned as data, the draft card left out", got)
	}
}
