package fakearm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"time"

	"github.com/armature-dev/armature/runtime/descriptor"
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
	// CertPEM is the self-signed certificate (nil for plain HTTP).
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

// selfSigned makes a certificate for 127.0.0.1, ::1 and localhost.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "armature fakearm", Organization: []string{"armature"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	return cert, certPEM, err
}
