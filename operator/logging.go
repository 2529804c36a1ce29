package operator

import (
	"github.com/go-logr/logr"
)

// MaxLogLevel is the highest verbosity the operator's logger writes,
// whatever --zap-log-level says: from level 8 on, client-go logs the
// bodies of the apiserver's requests and answers — Secrets' data among
// them — through the reconcilers' contextual loggers.
const MaxLogLevel = 7

// CapLevel returns l without the verbosity levels above max: what client-go
// would log there is never written, nor even formatted.
func CapLevel(l logr.Logger, max int) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	return logr.New(&cappedSink{LogSink: l.GetSink(), max: max})
}

// cappedSink is a logr.LogSink that drops the levels above max.
type cappedSink struct {
	logr.LogSink
	max int
}

func (s *cappedSink) Enabled(level int) bool { return level <= s.max && s.LogSink.Enabled(level) }

func (s *cappedSink) Info(level int, msg string, kv ...any) {
	if level <= s.max {
		s.LogSink.Info(level, msg, kv...)
	}
}

func (s *cappedSink) WithValues(kv ...any) logr.LogSink {
	return &cappedSink{LogSink: s.LogSink.WithValues(kv...), max: s.max}
}

func (s *cappedSink) WithName(name string) logr.LogSink {
	return &cappedSink{LogSink: s.LogSink.WithName(name), max: s.max}
}

// WithCallDepth keeps the call depth of the wrapped sink, when it has one.
func (s *cappedSink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.LogSink.(logr.CallDepthLogSink); ok {
		return &cappedSink{LogSink: cd.WithCallDepth(depth), max: s.max}
	}
	return s
}

var _ logr.CallDepthLogSink = (*cappedSink)(nil)
