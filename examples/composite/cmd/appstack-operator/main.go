package main

import (
	"github.com/armature-dev/armature/examples/composite"
	"github.com/armature-dev/armature/operator"
)

func main() { operator.Main("appstack-operator", operator.WithComposition(composite.Register)) }
