package importer

import (
	"fmt"
	"io"
	"sync"
)

// Event is a step of an import, for progress reports.
type Event struct {
	// Verb is GET or LIST (a request about to be sent), found (a resource
	// read), skip (a type ARM refused to list) or error.
	Verb string
	// Target is the resource id or collection path.
	Target string
	// Text is the kind of a found resource, or the reason or error.
	Text string
	// Found is the number of resources found so far (set on found).
	Found int
	// Calls is the number of ARM requests sent so far.
	Calls int
}

// Printer returns a Progress function that writes to w: on a terminal one
// status line redrawn in place (width columns; 0 means 100), else one
// plain line per resource found, type skipped and error. Call the
// returned done function at the end: it clears the status line.
func Printer(w io.Writer, terminal bool, width int) (progress func(Event), done func()) {
	if width <= 0 {
		width = 100
	}
	var mu sync.Mutex
	found, calls := 0, 0
	if !terminal {
		return func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Verb {
			case "found":
				fmt.Fprintf(w, "found %s %s\n", e.Text, e.Target)
			case "skip":
				fmt.Fprintf(w, "skip %s\n", e.Text)
			case "error":
				fmt.Fprintf(w, "error %s\n", e.Text)
			}
		}, func() {}
	}
	return func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			found, calls = max(found, e.Found), max(calls, e.Calls)
			if e.Verb == "error" || e.Verb == "skip" {
				fmt.Fprintf(w, "\r\033[K%s %s\n", e.Verb, e.Text)
			}
			head := fmt.Sprintf("%d resources, %d ARM calls · %s ", found, calls, e.Verb)
			// The end of an id says most: shorten it from the left.
			target := []rune(e.Target)
			if room := width - 1 - len([]rune(head)); len(target) > room && room > 1 {
				target = append([]rune("…"), target[len(target)-room+1:]...)
			}
			fmt.Fprintf(w, "\r\033[K%s%s", head, string(target))
		}, func() {
			mu.Lock()
			fmt.Fprint(w, "\r\033[K")
			mu.Unlock()
		}
}
