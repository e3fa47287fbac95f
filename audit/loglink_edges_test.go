package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLogLinkRotatesWhereItPoints: a log path that is a symbolic link
// (docs/audit.md: "a regular file (or a link to one)"; a log put on a disk
// of its own) had the link renamed at the first rotation, and every later
// file of the log was made in the link's folder (the data folder the link
// was meant to keep it off); pruning deleted the renamed link and left the
// file it pointed to. The rotated files, the next file and the pruned
// file are made beside the file the link points to, as the kernel follows
// it (a relative "../" from the link's real folder, when the data folder
// is a link itself); the link stays, and the log verifies through it.
func TestLogLinkRotatesWhereItPoints(t *testing.T) {
	for _, viaLinkedFolder := range []bool{false, true} {
		top := t.TempDir()
		data, disk := filepath.Join(top, "data"), filepath.Join(top, "logdisk")
		if viaLinkedFolder {
			// top/data is a link to top/real/data: "../logdisk" from
			// it is top/real/logdisk.
			real := filepath.Join(top, "real")
			if err := os.Mkdir(real, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join("real", "data"), data); err != nil {
				t.Fatal(err)
			}
			disk = filepath.Join(real, "logdisk")
			data = filepath.Join(real, "data")
		}
		for _, d := range []string{data, disk} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(top, "data", "audit.jsonl")
		if err := os.Symlink(filepath.Join("..", "logdisk", "audit.jsonl"), path); err != nil {
			t.Fatal(err)
		}
		logRotated(t, path, 1, 60, 2, nil)

		if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the log's link is no longer a link: %v, %v", st, err)
		}
		if ents, _ := os.ReadDir(data); len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("files of the log were made in the link's folder: %q; want the link alone", names)
		}
		rot, err := RotatedFiles(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(rot) != 2 {
			t.Fatalf("%d rotated files, want MaxFiles (2): %v", len(rot), rot)
		}
		for _, r := range rot {
			if filepath.Dir(r.Path) != disk {
				t.Errorf("rotated file %s is not beside the file the link points to (%s)", r.Path, disk)
			}
			if st, err := os.Lstat(r.Path); err != nil || !st.Mode().IsRegular() {
				t.Errorf("rotated file %s: %v, %v; want a regular file", r.Path, st, err)
			}
		}
		if got := filepath.Dir(PrunedName(path)); got != disk {
			t.Errorf("PrunedName(%s) is in %s, want %s", path, got, disk)
		}
		a, ok, err := PrunedAnchor(path, rot[0].First-1)
		if err != nil || !ok {
			t.Fatalf("PrunedAnchor(%d) = %v, %v, %v", rot[0].First-1, a, ok, err)
		}
		n, last, failed, err := VerifyFiles(logFiles(t, path), VerifyOptions{After: a})
		if err != nil || last.Seq != 60 || n != int(60-a.Seq) {
			t.Fatalf("verify through the link after %v: %d records, last %v, %s: %v", a, n, last, failed, err)
		}
		// Nothing but the current file, the files kept and the pruned
		// file is left on the log's disk: pruning deleted the files, not
		// links.
		ents, _ := os.ReadDir(disk)
		if len(ents) != len(rot)+2 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("the log's disk holds %q; want the current file, %d rotated files and the pruned file", names, len(rot))
		}
	}
}
