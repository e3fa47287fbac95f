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
