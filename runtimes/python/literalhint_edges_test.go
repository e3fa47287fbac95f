package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// A handler annotated with a Literal (def pick(mode: Literal["a", "b"])) or
// under "from __future__ import annotations" an Annotated scalar (def
// add(a: Annotated[int, "a number"], …)) loaded,
// though its params (a dict) can never be one: every call gave the handler
// the params dict as mode, and pick returned the dict itself as its result,
// where a handler annotated int fails the load saying the SDK does not read
// type hints (TestTypeHintedHandlerSaysHintsAreNotRead). Literal and
// Annotated are read as the types they stand for, also as the strings of
// "from __future__ import annotations"; Annotated[dict, …] still loads.
func TestLiteralAndAnnotatedHintsSayHintsAreNotRead(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, at, ann string }{
		{"typedliteral.py", "from typing import Literal\nfrom aios_sdk import tool\n\n@tool\ndef pick(mode: Literal['a', 'b']):\n    return mode\n", "typedliteral.py:4", "parameter mode as Literal['a', 'b']"},
		{"typedfutureliteral.py", "from __future__ import annotations\nfrom typing import Literal\nfrom aios_sdk import tool\n\n@tool\ndef pick2(mode: Literal['a', 'b']):\n    return mode\n", "typedfutureliteral.py:5", "parameter mode as Literal['a', 'b']"},
		{"typedannotated.py", "from typing import Annotated\nfrom aios_sdk import tool\n\n@tool\ndef add(a: Annotated[int, 'a number'], b: int = 0):\n    return a + b\n", "typedannotated.py:4", "parameter a as Annotated[int, 'a number']"},
		{"typedfutureannotated.py", "from __future__ import annotations\nfrom typing import Annotated\nfrom aios_sdk import tool\n\n@tool\ndef add2(a: Annotated[int, 'a number']):\n    return a\n", "typedfutureannotated.py:5", "parameter a as Annotated[int, 'a number']"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil {
			t.Errorf("%s loaded; want a load error at %s saying type hints are not read", tc.name, tc.at)
			continue
		}
		for _, want := range []string{tc.at, tc.ann, "does not read type hints"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, want)
			}
		}
	}
	if _, err := h.LoadFile(context.Background(), writeTool(t, "typedannotatedok.py", `from typing import Annotated, Any, Literal
from aios_sdk import Context, tool

@tool(parameters={"a": {"type": "integer"}})
def plain3(params: Annotated[dict[str, Any], "the call's arguments"], ctx: Annotated[Context, "ctx"]):
    return params["a"]
`), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatalf("a handler annotated Annotated[dict, …], Annotated[Context, …]: %v", err)
	}
}
