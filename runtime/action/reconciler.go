package action

import (
	"context"
	"errors"
	"fmt"
	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/credentials"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reasons of the Ready condition and of events.
const (
	ReasonWaitingForTarget = "WaitingForTarget"
	ReasonWaitingForSecret = "WaitingForSecret"
	ReasonRetrying         = "Retrying"
	ReasonSending          = "Sending"
	ReasonRunning          = "Running"
	ReasonSucceeded        = core.ReasonSucceeded
	ReasonInvalidSpec      = "InvalidSpec"
	ReasonResultObject     = "ResultObjectExists"
	ReasonOutcomeUnknown   = "OutcomeUnknown"
)

// Event reasons beside the condition reasons.
const (
	EventSent             = "Sent"
	EventOperationStarted = core.EventOperationStarted
)

// step wraps err with the step of the reconcile it happened in; nil stays
// nil.
func step(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Reconciler runs Actions.
type Reconciler struct {
	// Client reads and writes Actions, their targets, Secrets and
	// ConfigMaps.
	Client client.Client
	// APIReader reads Actions from the apiserver, past the cache, when a
	// status write after sending conflicts. Defaults to Client.
	APIReader client.Reader
	// ARM polls operations.
	ARM arm.Client
	// Poster sends the actions.
	Poster arm.Poster
	// Registry knows the generated kinds.
	Registry *Registry
	// Credentials, when set, picks each Action's credential as the
	// reconciler picks an object's: a credential Secret of the Action's
	// namespace, the operator's own only in namespaces opted in. A target
	// given by spec.target.armId never gets another credential than the
	// Action's namespace's. Nil: ARM and Poster for every Action.
	Credentials *credentials.Credentials
	// Recorder records events. Optional.
	Recorder record.EventRecorder
	// WaitInterval is how often a Pending Action looks at its target
	// again, besides the watch on the target. Defaults to 1 minute.
	WaitInterval time.Duration
	// PollInterval is the wait between polls when ARM gives no
	// Retry-After, and before retrying an answer that says the action did
	// not run. Defaults to 2 seconds.
	PollInterval time.Duration
	// Timeout is the deadline of one reconcile. Defaults to 2 minutes.
	Timeout time.Duration
	// Objects is how the generated kinds' objects are read from the
	// operator's cache (WithObjects).
	Objects Objects

	// targetsLater: targets are watched as their kinds are served
	// (WithTargetsLater, WatchTarget).
	targetsLater bool
	mu           sync.Mutex
	ctrl         controller.Controller
	cache        cache.Cache
	watched      map[schema.GroupKind]bool
}

// Objects is how the Action controller reads the generated kinds' custom
// resources when the operator's cache holds them in a form of its own
// (the reconciler's slim objects: runtime/reconciler TransformForCache).
// The operator composition provides it; the zero value reads objects as
// the cache holds them.
type Objects struct {
	// Reader wraps the manager's client so that reads return whole
	// objects (reconciler.CacheReader).
	Reader func(client.Client) client.Client
	// Changed reports whether an update of a target changed what waiting
	// Actions wait for, its readiness or ARM id, from the objects the
	// cache hands watches (reconciler.ReadinessChanged). Nil: every
	// update counts.
	Changed func(oldObj, newObj client.Object) bool
}

// WithObjects sets how the generated kinds' objects are read.
func WithObjects(o Objects) Option { return func(r *Reconciler) { r.Objects = o } }

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithWaitInterval sets WaitInterval.
func WithWaitInterval(d time.Duration) Option { return func(r *Reconciler) { r.WaitInterval = d } }

// WithPollInterval sets PollInterval.
func WithPollInterval(d time.Duration) Option { return func(r *Reconciler) { r.PollInterval = d } }

// WithTimeout sets Timeout.
func WithTimeout(d time.Duration) Option { return func(r *Reconciler) { r.Timeout = d } }

// WithCredentials sets Credentials.
func WithCredentials(c *credentials.Credentials) Option {
	return func(r *Reconciler) { r.Credentials = c }
}

// WithRecorder sets Recorder.
func WithRecorder(rec record.EventRecorder) Option { return func(r *Reconciler) { r.Recorder = rec } }

// New returns a Reconciler. armClient must also be an arm.Poster (the
// client of arm.NewClient is).
func New(c client.Client, armClient arm.Client, reg *Registry, opts ...Option) (*Reconciler, error) {
	poster, ok := armClient.(arm.Poster)
	if !ok {
		return nil, fmt.Errorf("action: the ARM client %T cannot send POST actions (it is not an arm.Poster)", armClient)
	}
	r := &Reconciler{Client: c, ARM: armClient, Poster: poster, Registry: reg, WaitInterval: time.Minute, PollInterval: 2 * time.Second, Timeout: 2 * time.Minute}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// Reconcile is the orchestrator of the steps in the package doc. It runs
// under the deadline Timeout.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	a := &v1alpha1.Action{}
	if err := r.Client.Get(ctx, req.NamespacedName, a); err != nil {
		return reconcile.Result{}, step("read the Action", client.IgnoreNotFound(err))
	}
	switch {
	case !a.DeletionTimestamp.IsZero(), done(a):
		return reconcile.Result{}, nil
	case a.Status.Operation != nil:
		return r.poll(ctx, a)
	case a.Status.SentAt != nil:
		return r.unknownOutcome(ctx, a)
	}
	return r.start(ctx, a)
}

func done(a *v1alpha1.Action) bool {
	return a.Status.Phase == v1alpha1.PhaseSucceeded || a.Status.Phase == v1alpha1.PhaseFailed
}

// start checks everything that can be checked before sending, records the
// intent and sends.
func (r *Reconciler) start(ctx context.Context, a *v1alpha1.Action) (reconcile.Result, error) {
	d, act, errs := r.Registry.Validate(&a.Spec)
	if len(errs) > 0 {
		return r.fail(ctx, a, ReasonInvalidSpec, errs.ToAggregate().Error(), nil)
	}
	id, waiting, err := r.target(ctx, a, d)
	if err != nil {
		return reconcile.Result{}, step("resolve the target", err)
	}
	if waiting != "" {
		return r.wait(ctx, a, ReasonWaitingForTarget, waiting, r.WaitInterval)
	}
	body, waiting, err := r.body(ctx, a)
	if err != nil {
		return reconcile.Result{}, step("build the request body", err)
	}
	if waiting != "" {
		return r.wait(ctx, a, ReasonWaitingForSecret, waiting, r.WaitInterval)
	}
	if msg, err := r.resultsFree(ctx, a); err != nil || msg != "" {
		if err != nil {
			return reconcile.Result{}, step("check the result objects", err)
		}
		return r.fail(ctx, a, ReasonResultObject, msg, nil)
	}
	_, poster, waits, wres, err := r.clients(ctx, a)
	if waits {
		return wres, err
	}
	if ok, err := r.claim(ctx, a, id, d.APIVersion); err != nil || !ok {
		return reconcile.Result{Requeue: !ok && err == nil}, step("record the intent", err)
	}
	res, err := poster.Post(ctx, id, d.APIVersion, arm.PostRequest{Action: act.Name, Query: a.Spec.Query, Body: body, FinalStateVia: act.FinalStateVia})
	observe(d, act, "POST", err)
	if err != nil {
		return r.sendFailed(ctx, a, act, err)
	}
	r.event(a, corev1.EventTypeNormal, EventSent, fmt.Sprintf("POST %s/%s", id, act.Name))
	if !res.Done() {
		return r.operationStarted(ctx, a, res)
	}
	return r.complete(ctx, a, act, res.Body)
}

// target resolves the target's ARM id; a non-empty waiting says why it
// cannot be acted on yet.
func (r *Reconciler) target(ctx context.Context, a *v1alpha1.Action, d *descriptor.Descriptor) (id, waiting string, err error) {
	if t := a.Spec.Target; t.ARMID != "" {
		return strings.TrimSuffix(t.ARMID, "/"), "", nil
	}
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(d.GroupVersionKind())
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: a.Spec.Target.Name}, o); err != nil {
		if apierrors.IsNotFound(err) {
			return "", fmt.Sprintf("%s %q does not exist", d.Kind, a.Spec.Target.Name), nil
		}
		return "", "", err
	}
	id, _, _ = unstructured.NestedString(o.Object, "status", "id")
	if id == "" || !targetReady(o) {
		return "", fmt.Sprintf("%s %q is not Ready", d.Kind, a.Spec.Target.Name), nil
	}
	return id, "", nil
}

// body is the request body: spec.parameters with the secretParameters
// read from their Secrets. A missing Secret or key is waited for.
func (r *Reconciler) body(ctx context.Context, a *v1alpha1.Action) ([]byte, string, error) {
	if a.Spec.Parameters == nil && len(a.Spec.SecretParameters) == 0 {
		return nil, "", nil
	}
	var body any
	if a.Spec.Parameters != nil && len(a.Spec.Parameters.Raw) > 0 {
		if err := unmarshal(a.Spec.Parameters.Raw, &body); err != nil {
			return nil, "", err
		}
	}
	for _, sp := range a.Spec.SecretParameters {
		path, err := descriptor.ParsePath(sp.Path)
		if err != nil || len(path) == 0 {
			return nil, "", reconcile.TerminalError(fmt.Errorf("spec.secretParameters path %q: not a property path: %v", sp.Path, err))
		}
		var s corev1.Secret
		err = r.Client.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: sp.SecretKeyRef.Name}, &s)
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("Secret %q (for %s) does not exist", sp.SecretKeyRef.Name, sp.Path), nil
		}
		if err != nil {
			return nil, "", err
		}
		v, ok := s.Data[sp.SecretKeyRef.Key]
		if !ok {
			return nil, fmt.Sprintf("Secret %q has no key %q (for %s)", sp.SecretKeyRef.Name, sp.SecretKeyRef.Key, sp.Path), nil
		}
		body = path.Set(body, string(v))
	}
	b, err := marshal(body)
	return b, "", err
}

// sendFailed decides what an error answer to the POST means (see Crash
// semantics in the package doc).
func (r *Reconciler) sendFailed(ctx context.Context, a *v1alpha1.Action, act *descriptor.Action, err error) (reconcile.Result, error) {
	var ae *arm.Error
	if errors.As(err, &ae) {
		switch {
		case ae.Status == http.StatusNotFound || ae.Status == http.StatusRequestTimeout || ae.Status == http.StatusConflict || ae.Status == http.StatusTooManyRequests:
			after := r.PollInterval
			if ae.Status == http.StatusNotFound {
				after = r.WaitInterval
			}
			return r.unclaim(ctx, a, fmt.Sprintf("Azure did not run %s: %s; it is tried again", act.Name, err), after)
		case ae.Status >= 400 && ae.Status < 500:
			return r.fail(ctx, a, ae.Code, "Azure refused the action: "+ae.Message, ae)
		}
	}
	if repeatable(act.Name) {
		return r.unclaim(ctx, a, fmt.Sprintf("%s failed (%s); it only reads, so it is sent again", act.Name, err), r.PollInterval)
	}
	msg := fmt.Sprintf("%s may or may not have run: %s. It is not sent again; check the resource and create a new Action to retry", act.Name, err)
	return r.fail(ctx, a, ReasonOutcomeUnknown, msg, errorOf(err))
}

// unknownOutcome handles an Action found sent without an answer: the
// operator stopped between the intent and the answer.
func (r *Reconciler) unknownOutcome(ctx context.Context, a *v1alpha1.Action) (reconcile.Result, error) {
	if repeatable(a.Spec.Action) {
		return r.unclaim(ctx, a, a.Spec.Action+" was sent but its answer was lost; it only reads, so it is sent again", 0)
	}
	msg := fmt.Sprintf("%s was sent at %s but the operator stopped before recording the answer: it may or may not have run. It is not sent again; check the resource and create a new Action to retry",
		a.Spec.Action, a.Status.SentAt.UTC().Format(time.RFC3339))
	return r.fail(ctx, a, ReasonOutcomeUnknown, msg, nil)
}

// poll advances the operation in flight once.
func (r *Reconciler) poll(ctx context.Context, a *v1alpha1.Action) (reconcile.Result, error) {
	d, act, errs := r.Registry.Validate(&a.Spec)
	if len(errs) > 0 {
		return r.fail(ctx, a, ReasonInvalidSpec, errs.ToAggregate().Error(), nil)
	}
	c, _, done, res, err := r.clients(ctx, a)
	if done {
		return res, err
	}
	pres, err := c.Poll(ctx, a.Status.Operation.ResumeToken)
	observe(d, act, "POLL", err)
	if err != nil {
		if arm.IsRetryable(err) {
			return reconcile.Result{}, step("poll the operation", err)
		}
		var ae *arm.Error
		if errors.As(err, &ae) {
			return r.fail(ctx, a, ae.Code, "the operation failed: "+ae.Message, ae)
		}
		return r.fail(ctx, a, ReasonOutcomeUnknown, "polling the operation failed: "+err.Error(), errorOf(err))
	}
	if !pres.Done() {
		return reconcile.Result{RequeueAfter: r.after(pres)}, nil
	}
	return r.complete(ctx, a, act, pres.Body)
}

// clients returns the ARM client and poster of the Action's credential;
// done is true when the Action waits for its credential (the condition is
// written).
func (r *Reconciler) clients(ctx context.Context, a *v1alpha1.Action) (arm.Client, arm.Poster, bool, reconcile.Result, error) {
	if r.Credentials == nil {
		return r.ARM, r.Poster, false, reconcile.Result{}, nil
	}
	b, err := r.Credentials.For(ctx, a)
	if err != nil {
		p, ok := credentials.AsProblem(err)
		if !ok {
			return nil, nil, true, reconcile.Result{}, step("pick the credential", err)
		}
		res, err := r.wait(ctx, a, p.Reason, p.Message, r.WaitInterval)
		return nil, nil, true, res, err
	}
	poster, ok := b.Client.(arm.Poster)
	if !ok {
		return nil, nil, true, reconcile.Result{}, fmt.Errorf("action: the ARM client of %s cannot send POST actions", b.Name)
	}
	return b.Client, poster, false, reconcile.Result{}, nil
}

func (r *Reconciler) after(res *arm.Result) time.Duration {
	if res != nil && res.RetryAfter > 0 {
		return res.RetryAfter
	}
	return r.PollInterval
}

// repeatable reports an action that only reads, by ARM's naming
// convention: sending it again is harmless.
func repeatable(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "list") || strings.HasPrefix(n, "get") || strings.HasPrefix(n, "retrieve")
}

func errorOf(err error) *arm.Error {
	var ae *arm.Error
	if errors.As(err, &ae) {
		return ae
	}
	return &arm.Error{Code: "RequestFailed", Message: err.Error()}
}

func (r *Reconciler) event(a *v1alpha1.Action, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Event(a, typ, reason, msg)
	}
}
