package main

// defaultMin is the fraction of samples that must be Ready for `make
// samples` to pass (docs/samples.md, "The threshold").
const defaultMin = 0.95
