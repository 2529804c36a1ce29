// Package playback runs the operator against real ARM answers: for each
// recording of real ARM traffic in test/recordings (and
// ../shared/recordings) whose resource types are all generated, a
// fakearm.Playback serves the recording's responses, matched by method,
// path and the resource's state, and the operator reconciles the custom
// resources built from the recording's first PUT body of every resource.
//
// Per recording: every object reaches Ready (or, when real ARM refused
// every PUT of it, Ready=False with ARM's error code as the reason); every
// object whose resource the recording deletes is deleted, and its
// deletion completes; and every request the operator sent had a recorded
// answer — else the test names the requests without one. Resources the
// recording never deletes (they go with their parent) are created with the
// detach-on-delete policy.
//
// Retry-After is answered as 0: the recordings' timing is not what is
// tested. The tests need envtest (hack/setup-envtest.sh).
package playback
