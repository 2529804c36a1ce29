package reconciler

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
)

// A record of the body last applied is kept in an annotation, and all the
// annotations of an object share 256 KiB: a large body (a deployment's
// template) is stored compressed, and one that stays too large as its
// digest. The record is computed before the ARM call, so a body is never
// sent when its record cannot be written (a failed record would send it
// again, and again).

// The forms of a stored last-applied body.
const (
	// gzipPrefix marks a gzip-compressed, base64-encoded body.
	gzipPrefix = "gzip:"
	// digestPrefix marks the SHA-256 of a body too large even compressed:
	// an unchanged body is recognised, a changed one is compared with the
	// live resource.
	digestPrefix = "digest:"
)

// Sizes from which a record is compressed, and past which only its digest
// is kept (of the compressed form).
const (
	compressFrom = 32 << 10
	digestFrom   = 96 << 10
)

// storeApplied is the stored form of the applied body (JSON).
func storeApplied(applied string) string {
	if len(applied) < compressFrom {
		return applied
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = w.Write([]byte(applied))
	_ = w.Close()
	if enc := gzipPrefix + base64.StdEncoding.EncodeToString(b.Bytes()); len(enc) < digestFrom {
		return enc
	}
	return appliedDigest(applied)
}

func appliedDigest(applied string) string {
	sum := sha256.Sum256([]byte(applied))
	return digestPrefix + hex.EncodeToString(sum[:])
}

// loadApplied returns the applied body of a stored record; digest is set
// when only its digest was kept (body is then "").
func loadApplied(stored string) (body string, digest string) {
	switch {
	case strings.HasPrefix(stored, digestPrefix):
		return "", stored
	case strings.HasPrefix(stored, gzipPrefix):
		raw, err := base64.StdEncoding.DecodeString(stored[len(gzipPrefix):])
		if err != nil {
			return "", ""
		}
		r, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return "", ""
		}
		out, err := io.ReadAll(io.LimitReader(r, 64<<20))
		if err != nil {
			return "", ""
		}
		return string(out), ""
	}
	return stored, ""
}
