package wit

import (
	"fmt"
	"strings"
)

// SplitID splits an interface or world ID, "ns:pkg/name[@version]", into
// its package and name.
func SplitID(id string) (PackageName, string, error) {
	var pn PackageName
	s := id
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		pn.Version, s = s[i+1:], s[:i]
	}
	colon := strings.IndexByte(s, ':')
	slash := strings.LastIndexByte(s, '/')
	if colon <= 0 || slash < colon+2 || slash == len(s)-1 {
		return pn, "", fmt.Errorf("%q is not an interface or world name of the form ns:pkg/name[@version]", id)
	}
	pn.Namespace, pn.Name = s[:colon], s[colon+1:slash]
	return pn, s[slash+1:], nil
}

// SplitMember reads a function name as the component model writes resource
// members: "[constructor]r", "[method]r.f", "[static]r.f", and the
// "[async method]r.f" / "[async static]r.f" forms (async true). It returns
// the kind, the resource and the member's own name ("" for a constructor);
// any other name is FuncFree.
func SplitMember(name string) (kind FuncKind, resource, member string, async bool) {
	tag, rest, ok := strings.Cut(name, "]")
	if !ok || !strings.HasPrefix(tag, "[") {
		return FuncFree, "", "", false
	}
	tag = tag[1:]
	if tag == "constructor" {
		if rest == "" {
			return FuncFree, "", "", false
		}
		return FuncConstructor, rest, "", false
	}
	tag, async = strings.CutPrefix(tag, "async ")
	res, fn, ok := strings.Cut(rest, ".")
	if !ok || res == "" || fn == "" {
		return FuncFree, "", "", false
	}
	switch tag {
	case "method":
		return FuncMethod, res, fn, async
	case "static":
		return FuncStatic, res, fn, async
	}
	return FuncFree, "", "", false
}

// ValidateExternName checks the name of a component's import or export
// (an instance type's declarations too) against the Component Model's
// grammar (Explainer.md, "Import and export definitions"): a plain name (a
// label, "[constructor]r", "[method]r.f", "[static]r.f" and their
// "[async …]" forms) or an interface name "ns:pkg/name[@version]" (nested
// namespaces and projections allowed). An import may also be a
// "unlocked-dep=<…>", "locked-dep=<…>", "url=<…>" or "integrity=<…>" name,
// of which only control characters are refused here. The names become
// tool names, descriptions and the WIT `inspect` prints, where a newline
// or a ';' would write text of its own.
func ValidateExternName(name string, isImport bool) error {
	if isImport {
		for _, p := range []string{"unlocked-dep=<", "locked-dep=<", "url=<", "integrity=<"} {
			if strings.HasPrefix(name, p) {
				if i := strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
					return fmt.Errorf("name %q holds a control character", name)
				}
				return nil
			}
		}
	}
	if strings.ContainsAny(name, ":/@") {
		if err := validateInterfaceName(name); err != nil {
			return fmt.Errorf("name %q is not a plain name or an interface name (ns:pkg/name[@version]): %w", name, err)
		}
		return nil
	}
	if err := validatePlainName(name); err != nil {
		return fmt.Errorf("name %q is not a plain name or an interface name (ns:pkg/name[@version]): %w", name, err)
	}
	return nil
}

func validatePlainName(name string) error {
	rest := name
	tag := ""
	if strings.HasPrefix(rest, "[") {
		t, r, ok := strings.Cut(rest[1:], "]")
		if !ok {
			return fmt.Errorf("unterminated '['")
		}
		tag, rest = t, r
	}
	switch tag {
	case "", "async", "constructor":
		return validateID(rest)
	case "method", "static", "async method", "async static":
		res, fn, ok := strings.Cut(rest, ".")
		if !ok {
			return fmt.Errorf("[%s] wants resource.function", tag)
		}
		if err := validateID(res); err != nil {
			return err
		}
		return validateID(fn)
	}
	return fmt.Errorf("unknown annotation [%s]", tag)
}

func validateInterfaceName(name string) error {
	path, version, hasVersion := strings.Cut(name, "@")
	if hasVersion {
		if version == "" {
			return fmt.Errorf("empty version")
		}
		for i := 0; i < len(version); i++ {
			c := version[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+') {
				return fmt.Errorf("version %q holds %q", version, c)
			}
		}
	}
	spaces := strings.Split(path, ":")
	if len(spaces) < 2 {
		return fmt.Errorf("no namespace")
	}
	for _, s := range spaces[:len(spaces)-1] {
		if err := validateID(s); err != nil {
			return err
		}
	}
	parts := strings.Split(spaces[len(spaces)-1], "/")
	if len(parts) < 2 {
		return fmt.Errorf("no interface after the package")
	}
	for _, s := range parts {
		if err := validateID(s); err != nil {
			return err
		}
	}
	return nil
}
