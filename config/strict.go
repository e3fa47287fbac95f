package config

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem in a configuration file.
type Error struct {
	File string // file name, "config" when unknown
	Line int    // 1-based, 0 when unknown
	Path string // key path, e.g. agents.cli.grants[1]
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var nodeType = reflect.TypeOf(yaml.Node{})

// decodeStrict checks root against out's type (unknown keys are errors),
// records the line of every key path in lines (when not nil), then decodes.
// prefix is the key path of root inside the file.
func decodeStrict(root *yaml.Node, out any, file, prefix string, lines map[string]int) error {
	if lines == nil {
		lines = map[string]int{}
	}
	n := root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	t := reflect.TypeOf(out)
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("config: decode needs a pointer, got %T", out)
	}
	var errs errList
	checkKnown(n, t.Elem(), prefix, file, lines, &errs)
	if err := errs.err(); err != nil {
		return err
	}
	if err := n.Decode(out); err != nil {
		return typeErrors(err, file, lines)
	}
	return nil
}

// checkKnown walks n alongside the Go type t. Mapping keys that name no
// field of a struct are reported; yaml.Node fields are left to their owners.
func checkKnown(n *yaml.Node, t reflect.Type, path, file string, lines map[string]int, errs *errList) {
	if n.Kind == yaml.AliasNode {
		// Not followed: the anchored node is checked where it is defined,
		// and following aliases would let a small file expand exponentially.
		return
	}
	if _, seen := lines[path]; !seen {
		lines[path] = n.Line
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // Decode reports the type mismatch
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue // merge key; its values are checked by Decode
			}
			f, ok := fields[k.Value]
			if !ok {
				errs.add(&Error{File: file, Line: k.Line, Path: join(path, k.Value),
					Msg: fmt.Sprintf("unknown key %q%s (known keys: %s)", k.Value, suggest(k.Value, fields), strings.Join(sortedKeys(fields), ", "))})
				continue
			}
			p := join(path, k.Value)
			lines[p] = k.Line
			checkKnown(v, f.Type, p, file, lines, errs)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := joinKey(path, k.Value)
			lines[p] = k.Line
			checkKnown(v, t.Elem(), p, file, lines, errs)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, e := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			lines[p] = e.Line
			checkKnown(e, t.Elem(), p, file, lines, errs)
		}
	}
}

// yamlFields maps the yaml key of every exported field of t to its field.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func suggest(key string, fields map[string]reflect.StructField) string {
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	for k := range fields {
		if norm(k) == norm(key) {
			return fmt.Sprintf(", did you mean %q?", k)
		}
	}
	return ""
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinKey appends a map key, quoting it when it is not a plain word.
func joinKey(path, key string) string {
	if plainKey.MatchString(key) {
		return join(path, key)
	}
	return path + "[" + strconv.Quote(key) + "]"
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeErrors rewrites yaml.v3's "line N: cannot unmarshal ..." errors into
// Errors carrying the file and the key path read from that line.
func typeErrors(err error, file string, lines map[string]int) error {
	te, ok := err.(*yaml.TypeError)
	if !ok {
		return &Error{File: file, Msg: err.Error()}
	}
	byLine := map[int]string{}
	for p, l := range lines {
		// Prefer the longest (most specific) path on a line.
		if cur, ok := byLine[l]; !ok || len(p) > len(cur) || (len(p) == len(cur) && p < cur) {
			byLine[l] = p
		}
	}
	var errs errList
	for _, msg := range te.Errors {
		e := &Error{File: file, Msg: msg}
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = m[2]
			e.Path = byLine[e.Line]
		}
		errs.add(e)
	}
	return errs.err()
}

// yamlSyntaxError turns yaml.v3's "yaml: line 3: ..." into an Error.
func yamlSyntaxError(err error, file string) error {
	e := &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := lineRE.FindStringSubmatch(e.Msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "YAML syntax: " + m[2]
	}
	return e
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
