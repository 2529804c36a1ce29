package certs

import (
	"bytes"
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
	"time"

	"github.com/armature-dev/armature/webhook"
)

// backdate is how far before issuance certificates are valid from, for
// clocks that lag.
const backdate = 5 * time.Minute

// keyPair is a serving certificate with its key and CA bundle, as the
// Secret holds them.
type keyPair struct {
	// certPEM, keyPEM and caPEM are tls.crt, tls.key and ca.crt.
	certPEM, keyPEM, caPEM []byte
	// pair is the serving certificate with its key (pair.Leaf parsed);
	// leaf is pair.Leaf; cas the bundle, signer first.
	pair tls.Certificate
	leaf *x509.Certificate
	cas  []*x509.Certificate
}

// data is the Secret's data for p.
func (p *keyPair) data() map[string][]byte {
	return map[string][]byte{webhook.CertFile: p.certPEM, webhook.KeyFile: p.keyPEM, webhook.CAFile: p.caPEM}
}

// errEmpty is returned by parse for a Secret without a certificate.
var errEmpty = errors.New("no certificate yet")

// parse reads the Secret's data. It checks the shapes (the key matches
// the certificate, ca.crt holds certificates), not the validity.
func parse(data map[string][]byte) (*keyPair, error) {
	p := &keyPair{certPEM: data[webhook.CertFile], keyPEM: data[webhook.KeyFile], caPEM: data[webhook.CAFile]}
	if len(p.certPEM) == 0 && len(p.keyPEM) == 0 {
		return nil, errEmpty
	}
	var err error
	if p.pair, err = tls.X509KeyPair(p.certPEM, p.keyPEM); err != nil {
		return nil, fmt.Errorf("%s and %s: %w", webhook.CertFile, webhook.KeyFile, err)
	}
	p.leaf = p.pair.Leaf
	for rest := p.caPEM; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		ca, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", webhook.CAFile, err)
		}
		p.cas = append(p.cas, ca)
	}
	if len(p.cas) == 0 {
		return nil, fmt.Errorf("%s holds no certificate", webhook.CAFile)
	}
	return p, nil
}

// renewal says why the certificate in the Secret must be replaced at now
// ("" when it need not), and when it will have to be.
func (o Options) renewal(p *keyPair, parseErr error, now time.Time) (reason string, at time.Time) {
	if parseErr != nil {
		return parseErr.Error(), now
	}
	pool := x509.NewCertPool()
	for _, ca := range p.cas {
		pool.AddCert(ca)
	}
	for _, h := range o.hosts() {
		if _, err := p.leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: h, CurrentTime: now}); err != nil {
			return fmt.Sprintf("the certificate does not verify for %s: %v", h, err), now
		}
	}
	at = p.leaf.NotAfter.Add(-o.RenewBefore)
	if signer := p.cas[0]; signer.NotAfter.Before(p.leaf.NotAfter) {
		at = signer.NotAfter.Add(-o.RenewBefore)
	}
	if !now.Before(at) {
		return fmt.Sprintf("the certificate expires at %s, renewed %s before", p.leaf.NotAfter.UTC().Format(time.RFC3339), o.RenewBefore), now
	}
	return "", at
}

// issue makes a new CA and a serving certificate it signs for
// o.hosts(), both valid for o.Validity from now. The CA's key is dropped.
// The bundle is the new CA followed by prev's signer while that is valid,
// so that certificates prev signed keep verifying while replicas switch.
func (o Options) issue(prev *keyPair, now time.Time) (*keyPair, error) {
	notAfter := now.Add(o.Validity)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "armature-webhook-ca@" + now.UTC().Format(time.RFC3339)},
		NotBefore:             now.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create the CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the serving key: %w", err)
	}
	hosts := o.hosts()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		DNSNames:     hosts,
		NotBefore:    now.Add(-backdate),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	cas := []*x509.Certificate{ca}
	if prev != nil && now.Before(prev.cas[0].NotAfter) {
		cas = append(cas, prev.cas[0])
	}
	var bundle bytes.Buffer
	for _, c := range cas {
		_ = pem.Encode(&bundle, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	// Parsed back, so that an issued pair is exactly what replicas load.
	return parse(map[string][]byte{
		webhook.CertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		webhook.KeyFile:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		webhook.CAFile:   bundle.Bytes(),
	})
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
