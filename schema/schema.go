package schema

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator validates values against one compiled schema. It is immutable
// and safe for concurrent use.
type Validator struct {
	name string
	doc  map[string]any
	ref  *jsonschema.Schema // nil: accept any value
	fast *node              // nil: use ref
}

// ValidationError says where an instance violates its schema and how.
type ValidationError struct {
	// Path is the JSON pointer of the offending value in the instance
	// ("" for the instance itself).
	Path string
	// Message is short and readable: "expected integer, got string".
	Message string
}

func (e *ValidationError) Error() string {
	p := e.Path
	if p == "" {
		p = "/"
	}
	return "at " + p + ": " + e.Message
}

// Compile compiles doc, the schema of the tool (or part of a tool) called
// name. A nil or empty doc yields a validator that accepts any value. An
// uncompilable schema returns an error naming name and what is wrong.
func Compile(name string, doc map[string]any) (*Validator, error) {
	v := &Validator{name: name, doc: doc}
	if len(doc) == 0 {
		return v, nil
	}
	norm, err := normalizedCopy(doc)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(ecmaRegexp)
	loc := "urn:aios:schema:" + url.PathEscape(name)
	if name == "" {
		loc = "urn:aios:schema:unnamed"
	}
	if err := c.AddResource(loc, norm); err != nil {
		return nil, fmt.Errorf("schema of %s: %v", name, err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("schema of %s is invalid: %s", name, describeCompileError(err, loc))
	}
	v.ref = sch
	v.fast = buildFast(sch)
	return v, nil
}

// MustCompile is Compile for literals in code and tests; it panics on error.
func MustCompile(name string, doc map[string]any) *Validator {
	v, err := Compile(name, doc)
	if err != nil {
		panic(err)
	}
	return v
}

// Schema returns the document the validator was compiled from (nil for the
// accept-anything validator made from a nil document). Callers must not
// modify it.
func (v *Validator) Schema() map[string]any { return v.doc }

// Name returns the name given to Compile.
func (v *Validator) Name() string { return v.name }

// Fast reports whether Validate uses the compiled fast path.
func (v *Validator) Fast() bool { return v.fast != nil }

// Validate checks value, a canonical generic value (see abi.Normalize). It
// returns nil or a *ValidationError.
func (v *Validator) Validate(value any) error {
	if v == nil || v.ref == nil {
		return nil
	}
	if v.fast != nil {
		st, f := v.fast.validate(value)
		switch st {
		case stOK:
			return nil
		case stFail:
			return f.toError()
		}
		// stUnsupported: a non-canonical value or a rare case; ask the reference.
	}
	return v.validateRef(value)
}

// validateRef validates with the reference validator only.
func (v *Validator) validateRef(value any) error {
	if v == nil || v.ref == nil {
		return nil
	}
	err := v.ref.Validate(value)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return convertError(ve)
	}
	return &ValidationError{Message: err.Error()}
}

var _ error = (*ValidationError)(nil)

// convertError turns the reference's error tree into one short error: the
// first leaf cause, depth first.
func convertError(ve *jsonschema.ValidationError) *ValidationError {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	p := message.NewPrinter(language.English)
	return &ValidationError{Path: pointer(leaf.InstanceLocation), Message: leaf.ErrorKind.LocalizedString(p)}
}

func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// describeCompileError shortens the reference's compile errors: metaschema
// violations become "at /properties/a/type: ..." lines.
func describeCompileError(err error, loc string) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			var leaves []string
			collectLeaves(ve, &leaves)
			sort.Strings(leaves)
			leaves = dedupe(leaves)
			if len(leaves) > 3 {
				leaves = append(leaves[:3], "...")
			}
			return strings.Join(leaves, "; ")
		}
	}
	var rxe *jsonschema.InvalidRegexError
	if errors.As(err, &rxe) {
		return fmt.Sprintf("pattern %q at %s is not a valid ECMA-262 regular expression: %v", rxe.Regex, strings.TrimPrefix(rxe.URL, loc+"#"), rxe.Err)
	}
	return strings.ReplaceAll(err.Error(), loc, "schema")
}

func collectLeaves(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) == 0 {
		p := message.NewPrinter(language.English)
		ptr := pointer(ve.InstanceLocation)
		if ptr == "" {
			ptr = "/"
		}
		*out = append(*out, "at "+ptr+": "+ve.ErrorKind.LocalizedString(p))
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, out)
	}
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// normalizedCopy deep-copies doc and brings it to canonical form, so the
// caller's document is never modified.
func normalizedCopy(doc map[string]any) (any, error) {
	return abi.Normalize(deepCopy(doc))
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// refusingLoader refuses every external resource: a tool's schema must be
// self-contained, and loading files or URLs on its behalf would let a
// provider read the host's files.
type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external schema %q refused: schemas must be self-contained (use $defs and local $ref)", u)
}
