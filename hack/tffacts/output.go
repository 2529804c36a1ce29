package main

import "github.com/armature-dev/armature/generator/facts"

// The data file's types are generator/facts's, which reads it.
type (
	table            = facts.File
	resourceFacts    = facts.Resource
	fact             = facts.Fact
	unmapped         = facts.Unmapped
	unmappedResource = facts.UnmappedResource
	summary          = facts.Summary
)

// The fact kinds of the data file.
const (
	factForceNew    = facts.ForceNew
	factConditional = facts.ConditionalForceNew
	factUpdatable   = facts.Updatable
)
