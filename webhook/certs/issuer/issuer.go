package issuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// PEM block types of the issued certificates and key.
const (
	CertificateBlock = "CERTIFICATE"
	KeyBlock         = "EC PRIVATE KEY"
)

// Defaults of Request.
const (
	// DefaultValidity is how long a serving certificate is valid: one year.
	DefaultValidity = 365 * 24 * time.Hour
	// DefaultBackdate is how long before issuance certificates are valid
	// from, for clocks that lag: five minutes.
	DefaultBackdate = 5 * time.Minute
	// DefaultCAName is the CA's common name.
	DefaultCAName = "armature-ca"
)

// ErrNoHosts is returned for a request without hosts.
var ErrNoHosts = errors.New("a serving certificate needs at least one DNS name or IP")

// Request says what Issue makes. Only Hosts is required.
type Request struct {
	// Hosts are the DNS names and IP addresses the serving certificate is
	// for; the first is its common name.
	Hosts []string
	// CAName is the CA's common name. Defaults to DefaultCAName.
	CAName string
	// Now is the time of issue. Defaults to time.Now().
	Now time.Time
	// Validity is how long the serving certificate is valid from Now.
	// Defaults to DefaultValidity.
	Validity time.Duration
	// CAValidity is how long the CA is valid from Now. Defaults to
	// Validity.
	CAValidity time.Duration
	// Backdate is how long before Now both are valid from. Defaults to
	// DefaultBackdate.
	Backdate time.Duration
}

// Issued is a new CA and a serving certificate it signed. The CA's
// private key is not kept: the CA signs this one certificate.
type Issued struct {
	// CA is the CA certificate, parsed.
	CA *x509.Certificate
	// CAPEM is CA in PEM: what clients trust.
	CAPEM []byte
	// CertPEM and KeyPEM are the serving certificate and its private key.
	CertPEM, KeyPEM []byte
}

// withDefaults returns r with its defaults filled in.
func (r Request) withDefaults() Request {
	if r.CAName == "" {
		r.CAName = DefaultCAName
	}
	if r.Now.IsZero() {
		r.Now = time.Now()
	}
	if r.Validity <= 0 {
		r.Validity = DefaultValidity
	}
	if r.CAValidity <= 0 {
		r.CAValidity = r.Validity
	}
	if r.Backdate <= 0 {
		r.Backdate = DefaultBackdate
	}
	return r
}

// Issue makes a CA and a serving certificate for r.Hosts signed by it.
func Issue(r Request) (*Issued, error) {
	if len(r.Hosts) == 0 {
		return nil, ErrNoHosts
	}
	r = r.withDefaults()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: r.CAName},
		NotBefore:             r.Now.Add(-r.Backdate),
		NotAfter:              r.Now.Add(r.CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	ca, err := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create the CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the serving key: %w", err)
	}
	leaf, err := sign(servingTemplate(r), ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal the serving key: %w", err)
	}
	return &Issued{
		CA:      ca,
		CAPEM:   pem.EncodeToMemory(&pem.Block{Type: CertificateBlock, Bytes: ca.Raw}),
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: CertificateBlock, Bytes: leaf.Raw}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: KeyBlock, Bytes: keyDER}),
	}, nil
}

// servingTemplate is the serving certificate r asks for: hosts that parse
// as IP addresses are IP SANs, the others DNS names.
func servingTemplate(r Request) *x509.Certificate {
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: r.Hosts[0]},
		NotBefore:    r.Now.Add(-r.Backdate),
		NotAfter:     r.Now.Add(r.Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range r.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return tmpl
}

// sign creates tmpl signed by parent with signer's key, parsed back: the
// project's one place that creates a certificate.
func sign(tmpl, parent *x509.Certificate, pub, signer any) (*x509.Certificate, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

// serial returns a random 128-bit serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		// crypto/rand does not fail on supported platforms.
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return n
}
