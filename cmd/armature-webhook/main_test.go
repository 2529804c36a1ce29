package main

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generated/apis"
)

func TestSelectKinds(t *testing.T) {
	cases := map[string]struct {
		list    string
		want    []string
		wantErr bool
	}{
		"All":         {list: "", want: nil},
		"ByKind":      {list: "StorageAccount, virtualmachinescaleset", want: []string{"StorageAccount", "StorageAccount", "VirtualMachineScaleSet"}}, // StorageAccount: both versions
		"ByGroupKind": {list: "resources.azure.armature.dev/ResourceGroup", want: []string{"ResourceGroup"}},
		"Unknown":     {list: "Widget", wantErr: true},
	}
	all := apis.Descriptors()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ds, err := selectKinds(all, tc.list)
			if tc.wantErr {
				if err == nil {
					t.Errorf("selectKinds(%q): want an error", tc.list)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.list == "" {
				if len(ds) != len(all) {
					t.Errorf("selectKinds(\"\") = %d kinds, want all %d", len(ds), len(all))
				}
				return
			}
			var got []string
			for _, d := range ds {
				got = append(got, d.Kind)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"--port", "10443", "--self-signed", "--dns-name", "localhost,127.0.0.1", "--kinds", "StorageAccount"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{o.port, o.selfSigned, o.dnsNames, o.kinds, o.metricsAddr}
	want := []any{10443, true, "localhost,127.0.0.1", "StorageAccount", "0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if m := o.metricsOptions(); !m.SecureServing || m.FilterProvider == nil || len(m.TLSOpts) == 0 {
		t.Errorf("metrics are secure by default: %+v", m)
	}
	if w := o.webhookOptions(); len(w.TLSOpts) == 0 {
		t.Error("the webhook server has no TLS floor")
	}
	insecure, err := parseFlags([]string{"--metrics-addr", ":8080", "--metrics-secure=false"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if m := insecure.metricsOptions(); m.SecureServing || m.FilterProvider != nil || m.BindAddress != ":8080" {
		t.Errorf("--metrics-secure=false: %+v", m)
	}
	if _, err := parseFlags([]string{"extra"}, io.Discard); err == nil {
		t.Error("parseFlags with an argument: want an error")
	}
}
