// Package shortlinkwebhooks is the reference verifier of Shortlink webhooks for Go receivers:
// one file, standard library only, so it can be copied into a project as it is.
//
// It implements "Verifying a delivery" of both contracts, asyncapi/variant-a.yaml (header
// X-Webhook-Signature: t=<unix seconds>,v1=<hex>) and asyncapi/variant-b.yaml (header
// X-Service-Signature: <hex>), with the same answers as the JavaScript reference
// (src/webhooks/verify.mjs, "shortlink/webhooks") and the Python one
// (verifiers/python/shortlink_webhooks.py): all three are tested against the same vectors,
// verifiers/vectors.json (tests: verify_test.go beside this file), and in CI against deliveries
// a running Shortlink server signed (test/webhooks/verifiers-other-languages.test.ts).
//
// Both functions take the RAW request body, the bytes as received, before any JSON decoding
// (re-encoded JSON is not the signed bytes), and return true or false; nothing a sender sends
// makes them panic. They panic only on the receiver's own mistake: an empty secret.
//
//	http.HandleFunc("/hooks/shortlink", func(w http.ResponseWriter, r *http.Request) {
//		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20)) // read the raw bytes first
//		if err != nil {
//			http.Error(w, "unreadable body", http.StatusBadRequest)
//			return
//		}
//		secret := []byte(os.Getenv("SHORTLINK_SECRET"))
//		if !shortlinkwebhooks.VerifyVariantA(raw, r.Header.Get("X-Webhook-Signature"), secret, time.Now(), shortlinkwebhooks.DefaultTolerance) {
//			http.Error(w, "bad signature", http.StatusBadRequest)
//			return
//		}
//		var delivery struct {
//			Event string          `json:"event"`
//			Data  json.RawMessage `json:"data"`
//		}
//		_ = json.Unmarshal(raw, &delivery)
//		// Deliveries are at-least-once: deduplicate on event + data.id (asyncapi/variant-a.yaml).
//		w.WriteHeader(http.StatusNoContent)
//	})
//
// Variant B is the same with VerifyVariantB(raw, r.Header.Get("X-Service-Signature"), secret);
// deduplicate on the X-Service-Delivery-Id header.
package shortlinkwebhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far Variant A's t may be from the receiver's clock
// (asyncapi/variant-a.yaml).
const DefaultTolerance = 300 * time.Second

// VerifyVariantA checks a Variant A delivery: X-Webhook-Signature: t=<unix seconds>,v1=<hex>.
//
// It returns true when one v1 equals the lower-case hex of HMAC-SHA256(secret, "<t>." + raw
// body), compared in constant time, and t is at most tolerance from now (both ends included).
// Several v1 may be given (one right is enough); unknown keys are ignored; a second t, a t that
// is not 1 to 12 ASCII digits, or a part without "=" makes it false. A missing header is "".
func VerifyVariantA(rawBody []byte, signatureHeader string, secret []byte, now time.Time, tolerance time.Duration) bool {
	checkSecret(secret)
	var t string
	haveT := false
	var candidates []string
	for _, part := range strings.Split(signatureHeader, ",") {
		eq := strings.IndexByte(part, '=')
		if eq < 0 {
			return false
		}
		key, value := trim(part[:eq]), trim(part[eq+1:])
		switch key {
		case "t":
			if haveT || !isUnixSeconds(value) {
				return false
			}
			t, haveT = value, true
		case "v1":
			// A v1 that is not 64 lower-case hex digits is skipped, not fatal: another v1 (a
			// rotated secret's) may still match.
			if isLowerHexDigest(value) {
				candidates = append(candidates, value)
			}
		}
	}
	if !haveT || len(candidates) == 0 {
		return false
	}
	seconds, _ := strconv.ParseInt(t, 10, 64) // at most 12 ASCII digits: cannot fail
	// Sub saturates rather than overflows, so a t centuries away is simply too far.
	age := now.Sub(time.Unix(seconds, 0))
	if age > tolerance || age < -tolerance {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	// t is signed as it was sent (its digits, leading zeros and all), not as a number.
	mac.Write([]byte(t + "."))
	mac.Write(rawBody)
	expected := []byte(hex.EncodeToString(mac.Sum(nil)))
	matched := false
	// Every candidate is compared, so the time taken does not tell which one matched.
	for _, candidate := range candidates {
		matched = hmac.Equal(expected, []byte(candidate)) || matched
	}
	return matched
}

// VerifyVariantB checks a Variant B delivery: X-Service-Signature: <hex HMAC-SHA256(secret, raw
// body)>. The hex may be in either case; surrounding whitespace is ignored; the comparison takes
// constant time. A missing header is "".
func VerifyVariantB(rawBody []byte, signatureHeader string, secret []byte) bool {
	checkSecret(secret)
	given := []byte(trim(signatureHeader))
	for i, c := range given {
		if 'A' <= c && c <= 'F' {
			given[i] = c + ('a' - 'A')
		}
	}
	if !isLowerHexDigest(string(given)) {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(rawBody)
	return hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), given)
}

func checkSecret(secret []byte) {
	if len(secret) == 0 {
		// The receiver's configuration, never the sender's input: fail loudly rather than answer
		// false to every delivery.
		panic("shortlinkwebhooks: a webhook secret is required")
	}
}

// trim removes what JavaScript's String.prototype.trim removes, which the JavaScript reference
// trims each part with. strings.TrimSpace differs (it removes U+0085 and keeps U+FEFF), so the
// set is spelled out to give the same answers.
func trim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
			return true
		}
		return '\u2000' <= r && r <= '\u200a'
	})
}

// isUnixSeconds: 1 to 12 ASCII digits. strconv.ParseInt alone would also take a sign.
func isUnixSeconds(s string) bool {
	if len(s) < 1 || len(s) > 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLowerHexDigest: exactly 64 lower-case hex digits (hex.DecodeString would also take upper case).
func isLowerHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
