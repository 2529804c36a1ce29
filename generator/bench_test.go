package generator_test

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/armature-dev/armature/generator"
)

// BenchmarkGenerate generates the whole shared corpus (specs/armature.yaml)
// and reports the wall time of every stage and the process's peak memory:
//
//	make bench-generate
func BenchmarkGenerate(b *testing.B) {
	opts := corpus(b)
	var sum generator.Timings
	var total time.Duration
	for i := 0; i < b.N; i++ {
		opts.OutDir = b.TempDir()
		start := time.Now()
		res, err := generator.Generate(opts)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		t := res.Timings
		sum.Load += t.Load
		sum.Tree += t.Tree
		sum.Classify += t.Classify
		sum.Model += t.Model
		sum.Emit.Go += t.Emit.Go
		sum.Emit.ControllerTools += t.Emit.ControllerTools
		sum.Emit.CRDs += t.Emit.CRDs
		sum.Emit.Docs += t.Emit.Docs
		sum.Emit.Write += t.Emit.Write
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
	b.ReportMetric(ms(total), "total-ms")
	b.ReportMetric(ms(sum.Load), "load-ms")
	b.ReportMetric(ms(sum.Tree), "tree-ms")
	b.ReportMetric(ms(sum.Classify), "classify-ms")
	b.ReportMetric(ms(sum.Model), "model-ms")
	b.ReportMetric(ms(sum.Emit.Go), "emit-go-ms")
	b.ReportMetric(ms(sum.Emit.ControllerTools), "controller-tools-ms")
	b.ReportMetric(ms(sum.Emit.CRDs), "crd-finish-ms")
	b.ReportMetric(ms(sum.Emit.Docs+sum.Emit.Write), "docs+write-ms")
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.Sys)/(1<<20), "go-sys-MiB")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(hwm, "peak-RSS-MiB")
	}
}

// peakRSS is VmHWM of this process (Linux), in MiB; 0 elsewhere.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
