package fakearm

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook/certs/issuer"
)

// Running is an emulator serving on a loopback port.
type Running struct {
	*Server
	*Endpoint
}

// Endpoint is a handler served on a loopback port (the emulator, or a
// Playback).
type Endpoint struct {
	// URL is the endpoint, e.g. https://127.0.0.1:40123.
	URL string
	// CertPEM is the CA of the served certificate, for clients to trust
	// (nil for plain HTTP).
	CertPEM []byte
	// CertPool trusts CertPEM.
	CertPool *x509.CertPool

	srv *http.Server
	ln  net.Listener
}

// StartOptions configure Start.
type StartOptions struct {
	Options
	// Addr is the address to listen on. Defaults to 127.0.0.1:0.
	Addr string
	// PlainHTTP serves HTTP instead of HTTPS.
	PlainHTTP bool
}

// Start serves an emulator for descs until Close.
func Start(descs []*descriptor.Descriptor, opts StartOptions) (*Running, error) {
	s, err := New(descs, opts.Options)
	if err != nil {
		return nil, err
	}
	e, err := Serve(s, opts)
	if err != nil {
		return nil, err
	}
	return &Running{Server: s, Endpoint: e}, nil
}

// Serve serves any handler as Start serves the emulator (Addr, PlainHTTP;
// the other options are the emulator's), until Close.
func Serve(h http.Handler, opts StartOptions) (*Endpoint, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	r := &Endpoint{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	scheme := "http"
	if !opts.PlainHTTP {
		cert, pemBytes, err := selfSigned()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		r.CertPEM = pemBytes
		r.CertPool = x509.NewCertPool()
		r.CertPool.AppendCertsFromPEM(pemBytes)
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	r.URL = fmt.Sprintf("%s://%s", scheme, r.ln.Addr().String())
	go func() {
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("fakearm:", err)
		}
	}()
	return r, nil
}

// Close stops serving.
func (r *Endpoint) Close() error { return r.srv.Close() }

// HTTPClient returns a client that trusts the endpoint's certificate.
func (r *Endpoint) HTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: r.CertPool, MinVersion: tls.VersionTLS12}
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}

// selfSigned issues a certificate for 127.0.0.1, ::1 and localhost, with
// the project's one issuer; the PEM returned is its CA, for clients to
// trust.
func selfSigned() (tls.Certificate, []byte, error) {
	is, err := issuer.Issue(issuer.Request{
		Hosts:    []string{"localhost", "127.0.0.1", "::1"},
		CAName:   "armature fakearm",
		Validity: 10 * 365 * 24 * time.Hour,
		Backdate: time.Hour,
	})
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err := tls.X509KeyPair(is.CertPEM, is.KeyPEM)
	return cert, is.CAPEM, err
}
