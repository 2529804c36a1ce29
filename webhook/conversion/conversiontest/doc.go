// Package conversiontest checks that conversion between the served
// versions of a generated kind loses nothing, with random objects built
// from the kind's property table. The generator writes a round-trip test
// per kind served in several versions that calls RoundTrip.
package conversiontest
