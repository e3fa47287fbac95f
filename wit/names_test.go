package wit

import "testing"

func TestSplitID(t *testing.T) {
	for _, c := range []struct {
		id, pkg, name string
		ok            bool
	}{
		{"wasi:io/streams@0.2.0", "wasi:io@0.2.0", "streams", true},
		{"a:b/c", "a:b", "c", true},
		{"a:b/c@1.0.0-rc.1+build", "a:b@1.0.0-rc.1+build", "c", true},
		{"c", "", "", false},
		{":b/c", "", "", false},
		{"a:/c", "", "", false},
		{"a:b/", "", "", false},
		{"a/b:c", "", "", false},
	} {
		pn, name, err := SplitID(c.id)
		if (err == nil) != c.ok || c.ok && (pn.String() != c.pkg || name != c.name) {
			t.Errorf("SplitID(%q) = %v %q %v", c.id, pn, name, err)
		}
	}
}

func TestSplitMember(t *testing.T) {
	for _, c := range []struct {
		name           string
		kind           FuncKind
		resource, memb string
		async          bool
	}{
		{"[constructor]blob", FuncConstructor, "blob", "", false},
		{"[method]blob.read", FuncMethod, "blob", "read", false},
		{"[static]blob.merge", FuncStatic, "blob", "merge", false},
		{"[async method]blob.wait", FuncMethod, "blob", "wait", true},
		{"[async static]blob.make", FuncStatic, "blob", "make", true},
		{"plain", FuncFree, "", "", false},
		{"[method]blob", FuncFree, "", "", false},
		{"[constructor]", FuncFree, "", "", false},
		{"[other]a.b", FuncFree, "", "", false},
	} {
		k, r, m, a := SplitMember(c.name)
		if k != c.kind || r != c.resource || m != c.memb || a != c.async {
			t.Errorf("SplitMember(%q) = %v %q %q %v", c.name, k, r, m, a)
		}
	}
}
