package stack

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/armature-dev/armature/examples/composite"
	"github.com/armature-dev/armature/operator"
)

// Operator is the operator running in this process.
type Operator struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Done is closed when the operator has stopped; Err then says why.
func (o *Operator) Done() <-chan struct{} { return o.done }

// Err is what operator.Run returned, once Done is closed.
func (o *Operator) Err() error {
	select {
	case <-o.done:
		return o.err
	default:
		return nil
	}
}

// Stop stops the operator and waits for it (10 s at most).
func (o *Operator) Stop() {
	o.cancel()
	select {
	case <-o.done:
	case <-time.After(10 * time.Second):
	}
}

// StartOperator runs the operator (operator.Run, with the example
// composition) in this process against the emulator arm, serving its
// admission and conversion webhooks where cp's configurations point, and
// returns once the webhook answers. cfg says the rest (subscription, poll
// interval, the emulator token, the namespaces opted in to the operator's
// own identity); its ARM endpoint, CA file and webhook settings are set
// here, and its metrics and probe servers are off unless cfg names an
// address. The Operator is returned also with an error, to be stopped.
func StartOperator(ctx context.Context, cp *ControlPlane, arm *ARM, cfg operator.Config) (*Operator, error) {
	cfg.ARMEndpoint, cfg.ARMCAFile = arm.URL, arm.CAFile
	cfg.Webhook, cfg.WebhookPort, cfg.CertDir = true, cp.Webhook.LocalServingPort, cp.Webhook.LocalServingCertDir
	if cfg.MetricsAddr == "" {
		cfg.MetricsAddr = "0"
	}
	if cfg.ProbeAddr == "" {
		cfg.ProbeAddr = "0"
	}
	opCtx, cancel := context.WithCancel(ctx)
	op := &Operator{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(op.done)
		op.err = operator.Run(opCtx, cp.Config, cfg, operator.WithComposition(composite.Register))
	}()
	return op, waitForWebhook(ctx, cp, op)
}

// waitForWebhook returns once the operator's webhook answers TLS on its
// port (the configurations fail closed until then).
func waitForWebhook(ctx context.Context, cp *ControlPlane, op *Operator) error {
	addr := net.JoinHostPort(cp.Webhook.LocalServingHost, strconv.Itoa(cp.Webhook.LocalServingPort))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-op.Done():
			return fmt.Errorf("the operator stopped: %v", op.Err())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a readiness probe
		if err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the operator's webhook did not start within 30s")
}
