// Package templates holds the text/template files for what the generator
// writes that is not Go: the per-group documentation pages.
package templates

import "embed"

// FS holds every *.tmpl file of this folder.
//
//go:embed *.tmpl
var FS embed.FS
