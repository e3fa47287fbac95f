package config

import (
	"strings"
	"testing"
)

// TestSpaceGrantPatternNoSpaceCanMatch: a ReadSpace or WriteSpace
// pattern each of whose characters may be in a space name, but placed
// where no name has them (ReadSpace(.cache*): a name starts with a letter
// or digit; ReadSpace(*.): none ends with "."; "a..*"; more than 64
// characters besides the wildcards; aux.*, whose every match is a
// Windows device name) was taken and granted nothing, silently, where
// the same names without a wildcard are refused. It is refused saying
// why.
func TestSpaceGrantPatternNoSpaceCanMatch(t *testing.T) {
	for arg, want := range map[string]string{
		".cache*":                     `starts with a letter or digit`,
		"_private*":                   `starts with a letter or digit`,
		"-x?":                         `starts with a letter or digit`,
		"*.":                          `ends with "."`,
		"docs?.":                      `ends with "."`,
		"a..*":                        `".."`,
		"*..*":                        `".."`,
		strings.Repeat("a", 65) + "*": `longer than 64 characters`,
		"aux.*":                       `no space name can match it`,
	} {
		src := "agents:\n  a:\n    grants: [\"ReadSpace(" + arg + ")\"]\n"
		parseErr(t, src, `agents.a.grants[0]: capability "ReadSpace(`+arg+`)"`, want)
	}
	// Patterns some name matches stay grants.
	for _, arg := range []string{"*", "?", "docs*", "*.txt", "a.*", "*-*", "?ux", "con*", "co?", "a*.b", "*." + "a", strings.Repeat("a", 63) + "*", "x*" + strings.Repeat("?", 63)} {
		src := "agents:\n  a:\n    grants: [\"ReadSpace(" + arg + ")\", \"WriteSpace(" + arg + ")\"]\n"
		if _, err := Parse([]byte(src), "c.yaml"); err != nil {
			t.Errorf("Parse(ReadSpace(%s)): %v", arg, err)
		}
	}
}
