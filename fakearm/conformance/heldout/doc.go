// Package heldout learns behaviour profiles with one recording held out,
// for the leave-one-out figure of fakearm/conformance (`fakearm
// conformance --leave-one-out`, `make conformance`).
//
// # Same learning as the generator
//
// The profiles are learned by generator/profile from the swagger that
// specs/armature.yaml names and the recordings of its "recordings"
// folders, as `make generate` learns generated/profiles: the swagger is
// analysed once, then the profiles are learned again for every recording
// held out, without it, and read back from the files the generator would
// write. A recording outside the learning set holds nothing out (the full
// set, learned once).
//
// # Kept apart
//
// The package links the generator; fakearm/conformance does not, so the
// emulator and its replay stay free of it.
package heldout
