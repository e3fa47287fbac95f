package registry

import "testing"

// DiffEntries(nil, e) and DiffEntries(e, nil) panicked with a nil pointer
// dereference (an integrator passing what Resolve or Versions did not
// find). Now it is nil, as its doc says; two entries still diff.
func TestDiffEntriesOfNilIsNil(t *testing.T) {
	e := &Entry{Provider: &ProviderRecord{}}
	e.Def.Name = "echo"
	if d := DiffEntries(nil, e); d != nil {
		t.Errorf("DiffEntries(nil, e) = %+v, want nil", d)
	}
	if d := DiffEntries(e, nil); d != nil {
		t.Errorf("DiffEntries(e, nil) = %+v, want nil", d)
	}
	if d := DiffEntries(e, e); d == nil || d.Tool != "echo" || len(d.Changes) != 0 {
		t.Errorf("DiffEntries(e, e) = %+v, want no changes of echo", d)
	}
}
