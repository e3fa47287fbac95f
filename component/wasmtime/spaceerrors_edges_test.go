//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// spacesPassHex is component/spaceerrors_edges_test.go's component: read
// and write return aios:sdk/spaces' result unchanged, an error included.
const spacesPassHex = "0061736d0d000100074701420701707d016a01000173014001096f626a6563742d6964730001040004726561640102016a01730173014002057370616365730464617461000003040005777269746501040a1a01001561696f733a73646b2f73706163657340302e312e30050001760061736d0100000001090160047f7f7f7f017f0302010005030100010607017f014180080b071102036d656d0200077265616c6c6f6300000a1d011b01017f230041076a417871240023002104230020036a240020040b001d046e616d650005046c6962630206010001040172070701000462756d7002040100000006260400020100036d656d00000100077265616c6c6f6301000004726561640100000577726974650813020100000303000400000100010303000400000194010061736d01000000011d0460037f7f7f0060057f7f7f7f7f0060027f7f017f60047f7f7f7f017f0218020373646b047265616400000373646b057772697465000103030202030710020472656164000205777269746500030a1f020c00200020014110100041100b100020002001200220034110100141100b0019046e616d650002016d010e0200047265616401057772697465021b0201020472656164000105777269746500020001010373646b1201072806707d6a010101734001026964730002707d6a0173017340020573706163657304646174610400050614020000010204726561640000010205777269746508150200000303030004000003000004030300040000060b140200047265616401020000057772697465010300008e010e636f6d706f6e656e742d6e616d65012100000500077265616c6c6f63010572656164630206777269746563030172040177010800020100036d656d010c00110200046c69626301016d010c00120200046c696263020169011101020005726561646601067772697465660115030300097370616365732d74790302727406027774010a05010006737061636573"

// TestSpacesErrorPassedOn: as on wazero (component
// TestSpacesErrorPassedOn), a spaces.read or .write error string a
// guest returned unchanged reached its caller as ProviderError "NotFound:
// …"; it is the host's ToolError, code and message.
func TestSpacesErrorPassedOn(t *testing.T) {
	b, err := hex.DecodeString(spacesPassHex)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spacespass.wasm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l := newLoader(t, Options{})
	lp, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lp.Close() })
	env := &deniedWriteEnv{fakeEnv: &fakeEnv{}}
	run := func(tool string, params map[string]any) error {
		_, err := lp.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: tool, Params: params, Deadline: time.Now().Add(10 * time.Second)}, env)
		return err
	}
	var te *abi.ToolError
	if err := run("read", map[string]any{"id": "missing"}); !errors.As(err, &te) || te.Code != abi.NotFound || te.Message != "no object missing" {
		t.Errorf("read missing: %#v; want the host's NotFound \"no object missing\"", err)
	}
	if err := run("write", map[string]any{"space": "x", "data": "AAE="}); !errors.As(err, &te) || te.Code != abi.CapabilityDenied || te.Message != `caller "a" lacks WriteSpace(x)` {
		t.Errorf("write: %#v; want the host's CapabilityDenied", err)
	}
}

// deniedWriteEnv refuses every write as the host refuses a space the call
// is not granted.
type deniedWriteEnv struct{ *fakeEnv }

func (*deniedWriteEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	return abi.Object{}, abi.Errorf(abi.CapabilityDenied, "caller \"a\" lacks WriteSpace(%s)", space)
}
