package wasm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/internal/editdist"
	iwire "github.com/aios-host/aios-host/internal/wire"
)

// checkMembers refuses a member of the decoded message v that is not a
// field of the struct type t, at any depth of t's structs and slices
// (members of maps, such as JSON Schemas, are free). It returns the error
// naming the member's path and, when one is close, the field meant.
//
// A ToolRegister's members are read by name: one spelled wrong
// ("capabilities_required", "Permission_Level") was dropped without a
// word in MessagePack, and in JSON a case variant was taken for the field
// (encoding/json ignores case) while MessagePack dropped it, so one
// register meant two things, and a tool its author meant to guard with a
// required capability or a permission level was served without it.
func checkMembers(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch, which the decoder reports
		}
		fields := make(map[string]reflect.Type, t.NumField())
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && name != "-" && name != "" {
				fields[name] = f.Type
			}
		}
		names := make([]string, 0, len(obj))
		for k := range obj {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ft, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s: unknown member %q%s (member names are exact)", path, k, closestField(k, fields))
			}
			if err := checkMembers(obj[k], ft, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, _ := v.([]any)
		for i, e := range arr {
			if e == nil && t.Elem().Kind() == reflect.Struct {
				// Decoded as a zero struct: a null tool was "invalid
				// tool name \"\"".
				return fmt.Errorf("%s[%d] is null, want an object", path, i)
			}
			if err := checkMembers(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// closestField returns `; did you mean "x"?` for the field name nearest to
// k (equal ignoring case, or within three edits), else "".
func closestField(k string, fields map[string]reflect.Type) string {
	best, bestDist := "", 4
	lower := strings.ToLower(k)
	for n := range fields {
		d := editdist.Levenshtein(lower, n, bestDist)
		if d < bestDist || d == bestDist && n < best {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// checkRegisterMembers checks the member names of a ToolRegister the
// guest encoded with codec (checkMembers), and that a JSON one is Unicode
// text: encoding/json reads an invalid byte or an escaped lone surrogate
// as U+FFFD, so the registry's text check (abi.CheckText), which refuses a
// MessagePack guest's invalid bytes, never saw them.
func checkRegisterMembers(data []byte, codec abi.Codec) error {
	var raw any
	var err error
	if codec == abi.JSON {
		if err := iwire.NotUnicodeText(data); err != nil {
			return fmt.Errorf("the ToolRegister is not Unicode text: %w", err)
		}
		err = json.Unmarshal(data, &raw)
	} else {
		raw, err = wire.Decoder{AllowBin: true}.Decode(data)
	}
	if err != nil {
		return nil // the typed decoding, which ran first, took it: not ours to refuse
	}
	return checkMembers(raw, reflect.TypeFor[abi.ToolRegister](), "ToolRegister")
}
