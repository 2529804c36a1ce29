package sweep

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/armature-dev/armature/generator/load"
)

// Particulars a cause leaves out, in the order they are replaced.
var (
	reLocated = regexp.MustCompile(`[^\s"']+\.json#[^\s"':,]*`)                          // storage.json#/definitions/X
	reFile    = regexp.MustCompile(`[^\s"'(]+\.(json|go|yaml)(:\d+(:\d+)?)?`)            // a file, with a position
	reARMType = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*\.[A-Za-z0-9.]+(/[A-Za-z0-9]+)+`) // Microsoft.Storage/storageAccounts
	reQuoted  = regexp.MustCompile(`"(\\.|[^"\\])*"|'[^']*'|` + "`[^`]*`")
	reVersion = regexp.MustCompile(`\b(v\d{8}[a-z0-9]*|\d{4}-\d{2}-\d{2}(-[a-z0-9.]+)?)\b`) // v20240101, 2024-01-01
	reGroup   = regexp.MustCompile(`\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(dev|com|io|net|org)\b`)   // network.azure.armature.dev
	reCamel   = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`)                            // a name if mixed case: fooBar, FooBar
	rePath    = regexp.MustCompile(`\b[a-z][A-Za-z0-9]*(\.[A-Za-z0-9*\[\]]+)+\b`)           // properties.foo.bar
	reNumber  = regexp.MustCompile(`\b\d+\b`)
	reSpaces  = regexp.MustCompile(`\s+`)
	reList    = regexp.MustCompile(`(<[a-z]+>)(, <[a-z]+>)+`) // a list of paths is one cause, however long
)

// Cause turns a message into its cause: the first line, with locations,
// files, ARM types, quoted values, schema and Go names, dotted property
// paths and numbers replaced by placeholders, so that one fault of the
// generator met in many places gives one cause.
func Cause(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = reLocated.ReplaceAllString(msg, "<where>")
	msg = reFile.ReplaceAllString(msg, "<file>")
	msg = reARMType.ReplaceAllString(msg, "<type>")
	msg = reQuoted.ReplaceAllStringFunc(msg, func(q string) string {
		if q == `"null"` {
			return q // the value is the cause: JSON null where the schema says a type
		}
		return `"…"`
	})
	msg = reVersion.ReplaceAllString(msg, "<version>")
	msg = reGroup.ReplaceAllString(msg, "<group>")
	msg = rePath.ReplaceAllString(msg, "<path>")
	msg = reCamel.ReplaceAllStringFunc(msg, func(s string) string {
		if !mixedCase(s) || swaggerWords[s] {
			return s
		}
		return "<name>"
	})
	msg = reNumber.ReplaceAllString(msg, "N")
	msg = reList.ReplaceAllString(msg, "$1, …")
	msg = strings.TrimPrefix(strings.TrimSpace(reSpaces.ReplaceAllString(msg, " ")), "<type>: ")
	return msg
}

// swaggerWords are mixed-case words of swagger itself, kept in causes.
var swaggerWords = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "additionalProperties": true, "readOnly": true,
	"operationId": true, "modelAsString": true, "x-ms-enum": true, "discriminator": true,
}

// mixedCase reports a name with an upper-case letter after a lower-case
// one (fooBar, FooBar, PublicIPAddress): a schema, property or Go name
// rather than a word.
func mixedCase(s string) bool {
	lower := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z' && lower:
			return true
		}
	}
	return false
}

// problemOf turns an error of the generator into a Problem: a located
// error (*load.Error) gives Where, and its message without the location.
func problemOf(stage string, err error) Problem {
	p := Problem{Stage: stage, Message: err.Error()}
	var le *load.Error
	if errors.As(err, &le) {
		p.Where = le.Origin.String()
		p.Message = strings.TrimPrefix(p.Message, le.Origin.String()+": ")
		if i := strings.Index(p.Message, ": "+le.Origin.String()+": "); i >= 0 {
			// Wrapped with a prefix (the ARM type): keep it, drop the
			// location that Where holds.
			p.Message = p.Message[:i] + ": " + p.Message[i+len(": "+le.Origin.String()+": "):]
		}
	} else if m := reLocated.FindString(p.Message); m != "" {
		p.Where = m
	}
	p.Cause = Cause(p.Message)
	return p
}

// panicProblem is the Problem of a recovered panic: Where is the first
// frame outside the runtime (where the panic happened).
func panicProblem(v any) Problem {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	where := ""
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.Function != "" {
			where = f.Function + " (" + shortFile(f.File) + ":" + strconv.Itoa(f.Line) + ")"
			break
		}
		if !more {
			break
		}
	}
	msg := "panic: " + toString(v)
	return Problem{Stage: StagePanic, Where: where, Message: msg, Cause: Cause(msg) + " in " + funcName(where)}
}

func toString(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(fmt.Sprint(v)), "\n", " "), "\t", " "))
}

func funcName(where string) string {
	name, _, _ := strings.Cut(where, " (")
	return name
}

// shortFile keeps the last two path elements.
func shortFile(f string) string {
	parts := strings.Split(f, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
