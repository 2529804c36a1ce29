// Command fakearm serves a local Azure Resource Manager for every generated
// resource type (see package fakearm).
//
//	go run ./cmd/fakearm [--addr 127.0.0.1:8443] [--state FILE] [--plain-http] ...
//	go run ./cmd/fakearm conformance [--json FILE] RECORDING.yaml|DIR ...
//
// conformance replays recorded real ARM traffic against the emulator and
// prints how much of it the emulator answers as Azure did
// (docs/conformance.md).
package main
