package main

import (
	"github.com/armature-dev/armature/operator"
	tierapis "github.com/armature-dev/armature/tier/apis"
)

func main() {
	operator.Main("operator", operator.WithKinds(operator.Kinds{
		Descriptors: tierapis.Descriptors(),
		AddToScheme: tierapis.AddToScheme,
		Defaults:    tierapis.Defaults(),
	}))
}
