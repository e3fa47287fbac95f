package conformance

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	nativeconf "github.com/aios-host/aios-host/samples/native/conformance"
)

func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeNative,
		Load:    func(*testing.T) (abi.Provider, error) { return nativeconf.New(), nil },
	})
}
