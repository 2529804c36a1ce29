package stack

import (
	"os"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
)

// ARM is a running ARM emulator whose CA is in CAFile.
type ARM struct {
	*fakearm.Running
	// CAFile holds the CA of the emulator's certificate (PEM), for the
	// operator (--arm-ca-file) and other clients to trust.
	CAFile string
}

// StartARM starts the ARM emulator of the generated kinds with opts on a
// loopback port and writes its CA to caFile.
func StartARM(opts fakearm.Options, caFile string) (*ARM, error) {
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: opts})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(caFile, fa.CertPEM, 0o600); err != nil {
		_ = fa.Close()
		return nil, err
	}
	return &ARM{Running: fa, CAFile: caFile}, nil
}

// Stop removes CAFile and stops the emulator.
func (a *ARM) Stop() {
	_ = os.Remove(a.CAFile)
	_ = a.Close()
}
