package discovery

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed known/*.json
var knownFS embed.FS

// Library is a set of known adapters (seed 001 §3.1 step 4): cards for
// applications that have no card of their own, matched to .desktop entries
// by desktop file id.
type Library struct {
	byDesktop map[string]*Card
	cards     []*Card
}

// DefaultLibrary returns the library shipped in discovery/known/.
func DefaultLibrary() (*Library, error) {
	return LoadLibrary(knownFS, "known")
}

// LoadLibrary reads every *.json card under dir of fsys.
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	names, err := fs.Glob(fsys, dir+"/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	lib := &Library{byDesktop: map[string]*Card{}}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		c, err := ParseCard(data, n)
		if err != nil {
			return nil, err
		}
		if err := lib.Add(c); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
	}
	return lib, nil
}

// Add puts a card into the library; it must name a desktop_file.
func (l *Library) Add(c *Card) error {
	r := c.Requirements
	if r == nil || r.Software == nil || r.Software.Detection == nil || r.Software.Detection.DesktopFile == "" {
		return fmt.Errorf("known adapter %s names no requirements.software.detection.desktop_file to match", c.Adapter.ID)
	}
	df := r.Software.Detection.DesktopFile
	if old := l.byDesktop[df]; old != nil {
		return fmt.Errorf("known adapters %s and %s both match %s", old.Adapter.ID, c.Adapter.ID, df)
	}
	l.byDesktop[df] = c
	l.cards = append(l.cards, c)
	return nil
}

// Match returns the known adapter for a desktop entry, or nil. Hidden
// entries (deleted by the user) match nothing.
func (l *Library) Match(e *DesktopEntry) *Card {
	if l == nil || e == nil || e.Hidden || e.Type != "Application" {
		return nil
	}
	return l.byDesktop[e.ID]
}

// Cards lists the library's cards.
func (l *Library) Cards() []*Card { return l.cards }
