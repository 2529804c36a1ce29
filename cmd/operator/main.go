package main

import (
	"fmt"
	"os"

	"github.com/armature-dev/armature/operator"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plan" {
		if err := plan(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "operator plan:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "import" {
		if err := importGroup(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "operator import:", err)
			os.Exit(1)
		}
		return
	}
	operator.Main("operator")
}
