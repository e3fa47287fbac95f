package abi

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Name rules
//
// Tool names follow the MCP tool-name rule so that every tool can be exported
// over MCP unchanged: 1 to 128 characters from A–Z a–z 0–9 '_' '-' '.',
// starting with a letter or digit. Names are case-sensitive.
//
// Provider ids are reverse-domain names (org.example.pdf-tools): two or more
// dot-separated labels of lower-case letters, digits, '-' and '_', each
// starting with a letter or digit; at most 255 characters.

// ToolNamePattern is the tool name rule as a regular expression; the JS
// and Python SDKs check names with the same one at the line that declares
// the tool (their tests compare it with this).
const ToolNamePattern = `^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$`

var (
	toolNameRE   = regexp.MustCompile(ToolNamePattern)
	providerIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-]*(\.[a-z0-9][a-z0-9_\-]*)+$`)
)

// ValidateToolName checks a tool name against the rule above.
func ValidateToolName(name string) error {
	if !toolNameRE.MatchString(name) {
		if len(name) > maxQuotedName {
			// Not the whole of a name that may be a file's content
			// (`aios-host call "$NAME"`): its start, as the JS SDK
			// quotes one, and its length.
			cut := maxQuotedName
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			return fmt.Errorf("invalid tool name %q (%d characters): use 1-128 characters from A-Z a-z 0-9 _ - . starting with a letter or digit",
				name[:cut]+"…", utf8.RuneCountInString(name))
		}
		return fmt.Errorf("invalid tool name %q: use 1-128 characters from A-Z a-z 0-9 _ - . starting with a letter or digit", name)
	}
	return nil
}

// maxQuotedName is how much of an invalid tool name its error quotes.
const maxQuotedName = 140

// ValidateProviderID checks a provider id against the rule above.
func ValidateProviderID(id string) error {
	if len(id) > 255 || !providerIDRE.MatchString(id) {
		return fmt.Errorf("invalid provider id %q: want reverse-domain form such as org.example.tools (lower-case labels of a-z 0-9 - _, two or more, dot-separated)", id)
	}
	return nil
}

// LocalProviderID is the id of a provider that names none, from the file it
// was loaded from: "local." and the file name without its extension, lower
// case, each character other than a-z, 0-9 and '-' turned into '-'
// (pdf_tools.py → local.pdf-tools), at most 128 characters; "local.provider"
// when nothing is left. Every runtime uses it, so a file's id does not
// depend on its language.
func LocalProviderID(path string) string {
	return localID(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
}

// LocalID is the id of a provider that names none: LocalProviderID of its
// file, or for a provider packaged as a folder (Unit: a folder unit with
// tool.py, index.ts, …) the folder's name as it is (plugins/word_count/ →
// local.word-count), so that two such folders do not both become
// local.tool or local.index.
func (s Source) LocalID() string {
	if s.Unit != "" {
		return localID(filepath.Base(s.Unit))
	}
	return LocalProviderID(s.Path)
}

// localID is "local." and stem by LocalProviderID's rule.
func localID(stem string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(stem) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 128 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "provider"
	}
	return "local." + s
}
