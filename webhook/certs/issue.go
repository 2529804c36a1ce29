package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/armature-dev/armature/webhook/certs/issuer"
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
	return map[string][]byte{CertFile: p.certPEM, KeyFile: p.keyPEM, CAFile: p.caPEM}
}

// errEmpty is returned by parse for a Secret without a certificate.
var errEmpty = errors.New("no certificate yet")

// parse reads the Secret's data. It checks the shapes (the key matches
// the certificate, ca.crt holds certificates), not the validity.
func parse(data map[string][]byte) (*keyPair, error) {
	p := &keyPair{certPEM: data[CertFile], keyPEM: data[KeyFile], caPEM: data[CAFile]}
	if len(p.certPEM) == 0 && len(p.keyPEM) == 0 {
		return nil, errEmpty
	}
	var err error
	if p.pair, err = tls.X509KeyPair(p.certPEM, p.keyPEM); err != nil {
		return nil, fmt.Errorf("%s and %s: %w", CertFile, KeyFile, err)
	}
	p.leaf = p.pair.Leaf
	for rest := p.caPEM; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		ca, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", CAFile, err)
		}
		p.cas = append(p.cas, ca)
	}
	if len(p.cas) == 0 {
		return nil, fmt.Errorf("%s holds no certificate", CAFile)
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
// o.hosts(), both valid for o.Validity from now (issuer.Issue). The CA's
// key is dropped. The bundle is the new CA followed by prev's signer while
// that is valid, so that certificates prev signed keep verifying while
// replicas switch.
func (o Options) issue(prev *keyPair, now time.Time) (*keyPair, error) {
	is, err := issuer.Issue(issuer.Request{
		Hosts:    o.hosts(),
		CAName:   "armature-webhook-ca@" + now.UTC().Format(time.RFC3339),
		Now:      now,
		Validity: o.Validity,
		Backdate: backdate,
	})
	if err != nil {
		return nil, err
	}
	bundle := append([]byte(nil), is.CAPEM...)
	if prev != nil && now.Before(prev.cas[0].NotAfter) {
		bundle = append(bundle, pem.EncodeToMemory(&pem.Block{Type: issuer.CertificateBlock, Bytes: prev.cas[0].Raw})...)
	}
	// Parsed back, so that an issued pair is exactly what replicas load.
	return parse(map[string][]byte{CertFile: is.CertPEM, KeyFile: is.KeyPEM, CAFile: bundle})
}
