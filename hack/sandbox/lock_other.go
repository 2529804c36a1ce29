//go:build !unix

package main

// lock does not lock on this system: run one sandbox per SANDBOX_DIR.
func lock(string) (func(), error) { return func() {}, nil }

// reapOrphans finds no processes on this system.
func reapOrphans(string) int { return 0 }
