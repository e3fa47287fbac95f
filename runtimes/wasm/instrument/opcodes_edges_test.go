package instrument

import (
	"bytes"
	"testing"
)

// funcModule is a module of one function of type () -> () whose body is
// code (no locals), with a declarative element segment naming it, so that
// ref.func 0 is valid.
func funcModule(code ...byte) []byte {
	body := append([]byte{0x00}, code...) // no locals
	body = append(body, 0x0b)
	codeSec := append([]byte{0x01, byte(len(body))}, body...)
	return cat(header,
		[]byte{0x01, 0x04, 0x01, 0x60, 0x00, 0x00},       // type () -> ()
		[]byte{0x03, 0x02, 0x01, 0x00},                   // func 0: type 0
		[]byte{0x09, 0x05, 0x01, 0x03, 0x00, 0x01, 0x00}, // elem declare func 0
		append([]byte{0x0a, byte(len(codeSec))}, codeSec...),
	)
}

// TestTypedReferenceOpcodes: the rewrite read ref.as_non_null (0xd4,
// no immediate) as taking an index and br_on_null (0xd5, a label) as
// taking none, the reverse of the typed function references proposal
// (which wazero implements: OpcodeRefAsNonNull 0xd4, OpcodeBrOnNull 0xd5).
// After ref.as_non_null the next instruction was swallowed as its
// "index": a loop there was left without its check, a loop no watchdog
// could stop; after br_on_null 3 the label was read as a loop and the
// check inserted in the middle of the instruction.
func TestTypedReferenceOpcodes(t *testing.T) {
	// The check inserted at a loop header, with $tick global 0 and the
	// tick import function 0.
	check := []byte{0x23, 0x00, 0x41, 0x01, 0x6b, 0x24, 0x00, 0x23, 0x00, 0x41, 0x00, 0x4c, 0x04, 0x40, 0x10, 0x00, 0x24, 0x00, 0x0b}

	// ref.func 0, ref.as_non_null, loop (br 0) end, drop
	out, err := Module(funcModule(0xd2, 0x00, 0xd4, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x1a))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, append([]byte{0xd4, 0x03, 0x40}, check...)) {
		t.Errorf("the loop after ref.as_non_null has no check: %x", out)
	}

	// block block block block (ref.func 0) br_on_null 3 drop end end end end
	in := funcModule(0x02, 0x40, 0x02, 0x40, 0x02, 0x40, 0x02, 0x40, 0xd2, 0x00, 0xd5, 0x03, 0x1a, 0x0b, 0x0b, 0x0b, 0x0b)
	if out, err = Module(in); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, check) {
		t.Errorf("a check was inserted into a function without loops or calls (br_on_null's label read as a loop): %x", out)
	}
	if !bytes.Contains(out, []byte{0xd2, 0x01, 0xd5, 0x03, 0x1a}) {
		t.Errorf("br_on_null 3 not copied as it was (ref.func renumbered to 1): %x", out)
	}
}
