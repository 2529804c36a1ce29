package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestRegister(t *testing.T) {
	newCounter := func() prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "armature_test_total", Help: "A test counter."})
	}
	c := newCounter()
	cases := map[string]struct {
		reason  string
		before  []prometheus.Collector
		cs      []prometheus.Collector
		wantErr bool
	}{
		"Fresh":       {reason: "A collector is registered with an empty registry.", cs: []prometheus.Collector{c}},
		"Again":       {reason: "The same collector registered again is not an error (an operator restarted in one process).", before: []prometheus.Collector{c}, cs: []prometheus.Collector{c}},
		"NameClashes": {reason: "Another collector of the same name is an error.", before: []prometheus.Collector{c}, cs: []prometheus.Collector{newCounter()}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := prometheus.NewPedanticRegistry()
			if err := Register(r, tc.before...); err != nil {
				t.Fatal(err)
			}
			err := Register(r, tc.cs...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nRegister: %v, want error %v", tc.reason, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			c.Inc()
			fams, err := r.Gather()
			if err != nil {
				t.Fatal(err)
			}
			if len(fams) != 1 || fams[0].GetName() != "armature_test_total" {
				t.Errorf("%s\nGather: %v, want armature_test_total", tc.reason, fams)
			}
		})
	}
}
