package component

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// spacesPassHex is this component (`jco parse`): its exports read and
// write call aios:sdk/spaces.read and .write and return their result
// unchanged, an error string included, as a guest's `spaces::read(id)?`
// does.
//
//	(component
//	  (type $spaces-ty (instance
//	    (type (list u8))
//	    (type (result 0 (error string)))
//	    (type (func (param "object-id" string) (result 1)))
//	    (export "read" (func (type 2)))
//	    (type (result string (error string)))
//	    (type (func (param "space" string) (param "data" 0) (result 3)))
//	    (export "write" (func (type 4)))))
//	  (import "aios:sdk/spaces@0.1.0" (instance $spaces (type $spaces-ty)))
//	  (core module $libc
//	    (memory (export "mem") 1)
//	    (global $bump (mut i32) (i32.const 1024))
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
//	      (local $r i32)
//	      (global.set $bump (i32.and (i32.add (global.get $bump) (i32.const 7)) (i32.const -8)))
//	      (local.set $r (global.get $bump))
//	      (global.set $bump (i32.add (global.get $bump) (local.get 3)))
//	      (local.get $r)))
//	  (core instance $libc (instantiate $libc))
//	  (alias core export $libc "mem" (core memory $mem))
//	  (alias core export $libc "realloc" (core func $realloc))
//	  (alias export $spaces "read" (func $readf))
//	  (alias export $spaces "write" (func $writef))
//	  (core func $readc (canon lower (func $readf) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core func $writec (canon lower (func $writef) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core module $m
//	    (import "sdk" "read" (func $read (param i32 i32 i32)))
//	    (import "sdk" "write" (func $write (param i32 i32 i32 i32 i32)))
//	    (func (export "read") (param i32 i32) (result i32)
//	      (call $read (local.get 0) (local.get 1) (i32.const 16))
//	      (i32.const 16))
//	    (func (export "write") (param i32 i32 i32 i32) (result i32)
//	      (call $write (local.get 0) (local.get 1) (local.get 2) (local.get 3) (i32.const 16))
//	      (i32.const 16)))
//	  (core instance $i (instantiate $m (with "sdk" (instance (export "read" (func $readc)) (export "write" (func $writec))))))
//	  (type $rt (func (param "id" string) (result (result (list u8) (error string)))))
//	  (type $wt (func (param "space" string) (param "data" (list u8)) (result (result string (error string)))))
//	  (alias core export $i "read" (core func $r))
//	  (alias core export $i "write" (core func $w))
//	  (func (export "read") (type $rt) (canon lift (core func $r) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (func (export "write") (type $wt) (canon lift (core func $w) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	)
const spacesPassHex = "0061736d0d000100074701420701707d016a01000173014001096f626a6563742d6964730001040004726561640102016a01730173014002057370616365730464617461000003040005777269746501040a1a01001561696f733a73646b2f73706163657340302e312e30050001760061736d0100000001090160047f7f7f7f017f0302010005030100010607017f014180080b071102036d656d0200077265616c6c6f6300000a1d011b01017f230041076a417871240023002104230020036a240020040b001d046e616d650005046c6962630206010001040172070701000462756d7002040100000006260400020100036d656d00000100077265616c6c6f6301000004726561640100000577726974650813020100000303000400000100010303000400000194010061736d01000000011d0460037f7f7f0060057f7f7f7f7f0060027f7f017f60047f7f7f7f017f0218020373646b047265616400000373646b057772697465000103030202030710020472656164000205777269746500030a1f020c00200020014110100041100b100020002001200220034110100141100b0019046e616d650002016d010e0200047265616401057772697465021b0201020472656164000105777269746500020001010373646b1201072806707d6a010101734001026964730002707d6a0173017340020573706163657304646174610400050614020000010204726561640000010205777269746508150200000303030004000003000004030300040000060b140200047265616401020000057772697465010300008e010e636f6d706f6e656e742d6e616d65012100000500077265616c6c6f63010572656164630206777269746563030172040177010800020100036d656d010c00110200046c69626301016d010c00120200046c696263020169011101020005726561646601067772697465660115030300097370616365732d74790302727406027774010a05010006737061636573"

// deniedWriteEnv refuses every write as the host refuses a space the call
// is not granted.
type deniedWriteEnv struct{ *fakeEnv }

func (deniedWriteEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	return abi.Object{}, abi.Errorf(abi.CapabilityDenied, "caller \"a\" lacks WriteSpace(%s)", space)
}

// TestSpacesErrorPassedOn: a component returning the error string of
// aios:sdk/spaces.read or .write unchanged as its own error (a guest's
// spaces::read(id)?) gave its caller ProviderError "NotFound: no object
// missing", where the same string from tools.call-tool gives the
// ToolError itself (docs/components.md "Nested errors") and a JS, Python
// or Go guest passing a space refusal on keeps its code. The caller gets
// the host's NotFound and CapabilityDenied; the bytes read come back
// whole (all 256 values, and none).
func TestSpacesErrorPassedOn(t *testing.T) {
	p := loadHexComponent(t, spacesPassHex, "spacespass.wasm")
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	env := &fakeEnv{objects: map[string][]byte{"o1": all, "e": {}}}
	for id, want := range map[string]string{"o1": base64.StdEncoding.EncodeToString(all), "e": ""} {
		if v, err := call(t, p, env, "read", map[string]any{"id": id}); err != nil || v != want {
			t.Errorf("read %s: %#v %v; want %q", id, v, err, want)
		}
	}
	_, err := call(t, p, env, "read", map[string]any{"id": "missing"})
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.NotFound || te.Message != "no object missing" {
		t.Errorf("read missing: %#v; want the host's NotFound \"no object missing\"", err)
	}
	_, err = call(t, p, deniedWriteEnv{env}, "write", map[string]any{"space": "x", "data": "AAE="})
	if !errors.As(err, &te) || te.Code != abi.CapabilityDenied || te.Message != `caller "a" lacks WriteSpace(x)` {
		t.Errorf("write: %#v; want the host's CapabilityDenied", err)
	}
}
