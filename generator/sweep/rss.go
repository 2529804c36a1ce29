package sweep

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// peakRSS returns the peak resident set of this process (VmHWM of
// /proc/self/status) in bytes; 0 where the system does not say. Child
// processes (go list, the compiler) are not counted: their ru_maxrss on
// Linux includes the parent's pages at fork, so it says nothing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
