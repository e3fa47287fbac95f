package host

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/space"
)

// TestSpaceFullIsTooLarge: a Space write past its space's quota or the
// disk reserve answers TooLarge with the store's reason, not Internal.
func TestSpaceFullIsTooLarge(t *testing.T) {
	st, err := space.Open(t.TempDir(), space.WithMaxSpaceBytes(4))
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Put("s", []byte("12345"))
	te := spaceError(err, "s", "")
	if te.Code != abi.TooLarge || te.Message != "space s: "+err.Error() {
		t.Fatalf("%v → %s %q", err, te.Code, te.Message)
	}
}
