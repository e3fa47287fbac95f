package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func TestErrorMappingRoundTrip(t *testing.T) {
	seen := map[int]abi.ErrorCode{}
	for _, c := range abi.KnownCodes {
		n := CodeFor(c)
		if n > -32000 && n != CodeInvalidParams && n != CodeInvalidRequest && n != CodeInternalError {
			t.Errorf("%s maps to %d, outside the server range", c, n)
		}
		if prev, dup := seen[n]; dup {
			t.Errorf("%s and %s share code %d", c, prev, n)
		}
		seen[n] = c
		e := FromError(&abi.ToolError{Code: c, Message: "m", Data: map[string]any{"k": "v"}})
		b, _ := json.Marshal(e)
		var back Error
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		te := back.ToolError()
		if te.Code != c || te.Message != "m" || te.Data.(map[string]any)["k"] != "v" {
			t.Errorf("%s: round trip gave %+v", c, te)
		}
		// Without data.code the numeric code still maps back.
		if got := (&Error{Code: n, Message: "m"}).ToolError().Code; got != c {
			t.Errorf("%d without data maps to %s, want %s", n, got, c)
		}
	}
	if CodeFor("Brand-new") != CodeUnknown {
		t.Error("unknown abi code")
	}
	if (&Error{Code: CodeMethodNotFound}).ToolError().Code != abi.NotFound {
		t.Error("method not found → NotFound")
	}
	if FromError(errors.New("boom")).Data.Code != abi.Internal {
		t.Error("a plain error is Internal")
	}
}

func TestIsBatch(t *testing.T) {
	for in, want := range map[string]bool{"[]": true, "  \n[1]": true, "{}": false, "": false} {
		if IsBatch([]byte(in)) != want {
			t.Errorf("IsBatch(%q) != %v", in, want)
		}
	}
}
