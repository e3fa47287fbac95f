package space

import (
	"fmt"
	"slices"
	"testing"
)

// TestListAfterPages: resources/list pages through a space by the last id
// of the page before, and each page listed the whole space (every fan-out
// directory, every object) to drop what sorts before it: paging through
// N objects cost N²/500 directory entries. ListAfter reads from the
// cursor's fan-out directory on and stops once the page is full
// (BenchmarkListAfterLastPage); its pages join up to List's answer.
func TestListAfterPages(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := s.Put("docs", fmt.Appendf(nil, "object %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.List("docs")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 300 || !slices.IsSorted(all) {
		t.Fatalf("List: %d ids, sorted %v", len(all), slices.IsSorted(all))
	}
	for _, n := range []int{1, 7, 299, 300, 1000} {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			page, err := s.ListAfter("docs", after, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > n || pages > 400 {
				t.Fatalf("n %d: a page of %d ids, or %d pages", n, len(page), pages)
			}
			got = append(got, page...)
			if len(page) < n {
				break
			}
			after = page[len(page)-1]
		}
		if !slices.Equal(got, all) {
			t.Errorf("n %d: the pages joined are %d ids, not List's %d", n, len(got), len(all))
		}
	}
	for after, want := range map[string]int{"": 300, "a": 300, IDPrefix: 300, "zzz": 0, all[299]: 0, all[149]: 150, all[0][:len(IDPrefix)+1]: -1} {
		page, err := s.ListAfter("docs", after, -1)
		if err != nil {
			t.Fatal(err)
		}
		if want >= 0 && len(page) != want {
			t.Errorf("after %q: %d ids, want %d", after, len(page), want)
		}
		for _, id := range page {
			if id <= after {
				t.Errorf("after %q: %s listed", after, id)
			}
		}
	}
}

// BenchmarkListAfterLastPage: the last page of 500 of a space of 5000
// objects (ListAfter) against listing the space whole (List), which each
// resources/list page did.
func BenchmarkListAfterLastPage(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		if _, err := s.Put("docs", fmt.Appendf(nil, "object %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	all, err := s.List("docs")
	if err != nil {
		b.Fatal(err)
	}
	after := all[len(all)-501]
	b.Run("ListAfter", func(b *testing.B) {
		for range b.N {
			if page, err := s.ListAfter("docs", after, 501); err != nil || len(page) != 500 {
				b.Fatal(len(page), err)
			}
		}
	})
	b.Run("List", func(b *testing.B) {
		for range b.N {
			if _, err := s.List("docs"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
