package discovery

import (
	"fmt"
	"strconv"
	"strings"

	debversion "pault.ag/go/debian/version"
)

// DebVersion is a Debian package version, [epoch:]upstream[-revision]
// (Debian Policy §5.6.12).
type DebVersion struct {
	Epoch    int
	HasEpoch bool // the epoch was written (1:2.3), not implied (2.3)
	Upstream string
	Revision string
}

// MaxVersionLen bounds a version string.
const MaxVersionLen = 256

// ParseDebVersion parses a Debian version: an optional epoch (digits and a
// colon), an upstream version that starts with a digit and holds letters,
// digits and . + ~ - (and : after an epoch), and an optional revision after
// the last hyphen (letters, digits and . + ~).
func ParseDebVersion(s string) (DebVersion, error) {
	var v DebVersion
	if s == "" {
		return v, fmt.Errorf("empty version")
	}
	if len(s) > MaxVersionLen {
		return v, fmt.Errorf("version is %d bytes, longer than %d", len(s), MaxVersionLen)
	}
	rest := s
	if e, u, ok := strings.Cut(s, ":"); ok {
		if e == "" {
			return v, fmt.Errorf("version %q: empty epoch before ':'", s)
		}
		for _, r := range e {
			if r < '0' || r > '9' {
				return v, fmt.Errorf("version %q: epoch %q is not a number", s, e)
			}
		}
		n, err := strconv.Atoi(e)
		if err != nil || n > 1<<31-1 {
			return v, fmt.Errorf("version %q: epoch %q is too large", s, e)
		}
		v.Epoch, v.HasEpoch, rest = n, true, u
	}
	if i := strings.LastIndexByte(rest, '-'); i >= 0 {
		v.Upstream, v.Revision = rest[:i], rest[i+1:]
		if v.Revision == "" {
			return v, fmt.Errorf("version %q: empty revision after '-'", s)
		}
		for _, r := range v.Revision {
			if !isAlnum(r) && r != '.' && r != '+' && r != '~' {
				return v, fmt.Errorf("version %q: revision %q holds %q (want letters, digits and . + ~)", s, v.Revision, r)
			}
		}
	} else {
		v.Upstream = rest
	}
	if v.Upstream == "" {
		return v, fmt.Errorf("version %q: empty upstream version", s)
	}
	if c := v.Upstream[0]; c < '0' || c > '9' {
		return v, fmt.Errorf("version %q: upstream version %q must start with a digit", s, v.Upstream)
	}
	for _, r := range v.Upstream {
		if !isAlnum(r) && !strings.ContainsRune(".+~-", r) && !(r == ':' && v.HasEpoch) {
			return v, fmt.Errorf("version %q: upstream version %q holds %q (want letters, digits and . + ~ -)", s, v.Upstream, r)
		}
	}
	return v, nil
}

func isAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func (v DebVersion) String() string {
	s := v.Upstream
	if v.HasEpoch {
		s = strconv.Itoa(v.Epoch) + ":" + s
	}
	if v.Revision != "" {
		s += "-" + v.Revision
	}
	return s
}

// Compare orders v and w as dpkg does (pault.ag/go/debian/version:
// epoch, then upstream, then revision; '~' sorts before everything, even
// the end). It returns -1, 0 or 1.
func (v DebVersion) Compare(w DebVersion) int {
	return sign(debversion.Compare(
		debversion.Version{Epoch: uint(v.Epoch), Version: v.Upstream, Revision: v.Revision},
		debversion.Version{Epoch: uint(w.Epoch), Version: w.Upstream, Revision: w.Revision}))
}

// CompareDebVersions parses a and b and compares them as dpkg does.
func CompareDebVersions(a, b string) (int, error) {
	va, err := ParseDebVersion(a)
	if err != nil {
		return 0, err
	}
	vb, err := ParseDebVersion(b)
	if err != nil {
		return 0, err
	}
	return va.Compare(vb), nil
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// ParseMinVersion parses requirements.software.min_version: a Debian-style
// upstream version such as 100.0, 120.0.6099.109, 2.3~rc1 or 1:2.3 (a
// leading "v" is allowed: v1.2).
//
// A hyphen is refused: min_version is compared on the upstream part only,
// so one after a Debian revision (2.3-5) was dropped without a word, and a
// SemVer pre-release (2.0.0-rc1, read as 2.0.0 revision rc1) made the
// installed 2.0.0~rc1 "older than min_version 2.0.0-rc1"
// (TestMinVersionHyphenRefused).
func ParseMinVersion(s string) (DebVersion, error) {
	if len(s) > 1 && s[0] == 'v' && s[1] >= '0' && s[1] <= '9' {
		s = s[1:]
	}
	v, err := ParseDebVersion(s)
	if err == nil && strings.Contains(s, "-") {
		return v, fmt.Errorf("version %q holds '-': a Debian revision is not compared (give the upstream version, %s), and a pre-release is written with '~' (%s)",
			s, strings.Split(s, "-")[0], strings.Replace(s, "-", "~", 1))
	}
	return v, err
}

// upstreamCore is the part of an upstream version that is compared with
// min_version: repackaging suffixes are cut ("2.3+dfsg1" → "2.3") and
// "X+reallyY" (a version that is in fact Y) becomes Y.
func upstreamCore(up string) string {
	if _, real, ok := strings.Cut(up, "+really"); ok && real != "" && real[0] >= '0' && real[0] <= '9' {
		up = real
	}
	if i := strings.IndexByte(up, '+'); i > 0 {
		up = up[:i]
	}
	return up
}

// VersionAtLeast reports whether the installed version (as dpkg or the
// program gives it) satisfies min_version. Both are compared on their
// upstream part with dpkg's ordering (so 2.3~rc1 < 2.3 < 2.3.1), without
// the Debian revision (-4) and repackaging suffixes (+dfsg). The epoch of
// the installed package is a packaging detail and is ignored unless
// min_version names one itself (4:7.0): then epochs are compared first, as
// dpkg does. LibreOffice is 4:7.4.7-1 in Debian, and min_version 8.0 must
// refuse it.
func VersionAtLeast(installed, minVersion string) (bool, error) {
	iv, err := ParseDebVersion(installed)
	if err != nil {
		return false, fmt.Errorf("installed version: %w", err)
	}
	mv, err := ParseMinVersion(minVersion)
	if err != nil {
		return false, fmt.Errorf("min_version: %w", err)
	}
	if mv.HasEpoch && iv.Epoch != mv.Epoch {
		return iv.Epoch > mv.Epoch, nil
	}
	return debversion.Compare(debversion.Version{Version: upstreamCore(iv.Upstream)}, debversion.Version{Version: upstreamCore(mv.Upstream)}) >= 0, nil
}
