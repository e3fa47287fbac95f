package component

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// rewriteImports returns a copy of a core module whose import section names
// each import by the (module, field) that resolve returns, so that wazero's
// import resolver can link core instances the way the component's core
// instance section wires them (inline export bags rename items).
func rewriteImports(mod []byte, resolve func(module, field string) (string, string, error)) ([]byte, error) {
	if len(mod) < 8 {
		return nil, fmt.Errorf("core module too short")
	}
	out := append([]byte(nil), mod[:8]...)
	pos := 8
	for pos < len(mod) {
		id := mod[pos]
		size, n := uleb(mod[pos+1:])
		if n == 0 {
			return nil, fmt.Errorf("bad section size at offset %d", pos+1)
		}
		start := pos + 1 + n
		end := start + int(size)
		if end > len(mod) || end < start {
			return nil, fmt.Errorf("section at offset %d is truncated", pos)
		}
		if id != 2 {
			out = append(out, mod[pos:end]...)
			pos = end
			continue
		}
		body, err := rewriteImportSection(mod[start:end], resolve)
		if err != nil {
			return nil, err
		}
		out = append(out, 2)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
		pos = end
	}
	return out, nil
}

func uleb(b []byte) (uint64, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 || n > 5 {
		return 0, 0
	}
	return v, n
}

func rewriteImportSection(b []byte, resolve func(module, field string) (string, string, error)) ([]byte, error) {
	cnt, n := uleb(b)
	if n == 0 {
		return nil, fmt.Errorf("bad import count")
	}
	pos := n
	var out bytes.Buffer
	out.Write(binary.AppendUvarint(nil, cnt))
	readName := func() (string, error) {
		l, n := uleb(b[pos:])
		if n == 0 || pos+n+int(l) > len(b) {
			return "", fmt.Errorf("bad import name at offset %d", pos)
		}
		s := string(b[pos+n : pos+n+int(l)])
		pos += n + int(l)
		return s, nil
	}
	for i := uint64(0); i < cnt; i++ {
		mod, err := readName()
		if err != nil {
			return nil, err
		}
		field, err := readName()
		if err != nil {
			return nil, err
		}
		descStart := pos
		if pos >= len(b) {
			return nil, fmt.Errorf("truncated import %q %q", mod, field)
		}
		kind := b[pos]
		pos++
		skipU := func() error {
			if pos > len(b) { // a tag's attribute byte read past the end
				return fmt.Errorf("truncated import %q %q", mod, field)
			}
			_, n := uleb(b[pos:])
			if n == 0 {
				return fmt.Errorf("bad import %q %q", mod, field)
			}
			pos += n
			return nil
		}
		skipLimits := func() error {
			if pos >= len(b) {
				return fmt.Errorf("bad limits in import %q %q", mod, field)
			}
			flags := b[pos]
			pos++
			if err := skipU(); err != nil {
				return err
			}
			if flags&1 != 0 {
				return skipU()
			}
			return nil
		}
		switch kind {
		case 0x00:
			err = skipU()
		case 0x01:
			pos++ // reftype
			err = skipLimits()
		case 0x02:
			err = skipLimits()
		case 0x03:
			pos += 2
		case 0x04:
			pos++
			err = skipU()
		default:
			return nil, fmt.Errorf("import %q %q has unknown kind %#x", mod, field, kind)
		}
		if err != nil {
			return nil, err
		}
		if pos > len(b) {
			return nil, fmt.Errorf("truncated import %q %q", mod, field)
		}
		nm, nf, err := resolve(mod, field)
		if err != nil {
			return nil, fmt.Errorf("import %q %q: %w", mod, field, err)
		}
		out.Write(binary.AppendUvarint(nil, uint64(len(nm))))
		out.WriteString(nm)
		out.Write(binary.AppendUvarint(nil, uint64(len(nf))))
		out.WriteString(nf)
		out.Write(b[descStart:pos])
	}
	if pos != len(b) {
		return nil, fmt.Errorf("%d trailing bytes in import section", len(b)-pos)
	}
	return out.Bytes(), nil
}
