package space_test

import (
	"fmt"
	"os"

	"github.com/aios-host/aios-host/space"
)

func ExampleStore() {
	dir, _ := os.MkdirTemp("", "spaces")
	defer os.RemoveAll(dir)
	s, err := space.Open(dir)
	if err != nil {
		panic(err)
	}
	id, _ := s.Put("source", []byte("abc"))
	data, _ := s.Get("source", id)
	fmt.Println(id)
	fmt.Println(string(data))
	fmt.Println(space.ValidateID("sha256:../../etc/passwd") != nil)
	// Output:
	// sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	// abc
	// true
}
