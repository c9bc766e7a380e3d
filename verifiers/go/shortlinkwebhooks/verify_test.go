// Tests of verify.go: every case of verifiers/vectors.json, the one panic (an empty secret), an
// example, and, when SHORTLINK_WEBHOOK_DELIVERIES names a file of deliveries a running Shortlink
// server signed (written by test/webhooks/verifiers-other-languages.test.ts, in the vectors'
// format), each of those.
//
//	cd verifiers/go/shortlinkwebhooks && go test -v
package shortlinkwebhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shortlink/shortlink/verifiers/go/shortlinkwebhooks"
)

// vector is one case of verifiers/vectors.json (the fields are explained in test/support/webhook-vectors.ts).
type vector struct {
	Variant          string   `json:"variant"`
	Name             string   `json:"name"`
	BodyBase64       string   `json:"bodyBase64"`
	Header           *string  `json:"header"` // null: the header is absent
	Secret           string   `json:"secret"`
	Now              float64  `json:"now"`
	ToleranceSeconds *float64 `json:"toleranceSeconds"`
	Expected         bool     `json:"expected"`
}

func loadVectors(t *testing.T, path string) []vector {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []vector `json:"cases"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return file.Cases
}

// verify is what the verifier answers for one case.
func verify(t *testing.T, v vector) bool {
	t.Helper()
	body, err := base64.StdEncoding.DecodeString(v.BodyBase64)
	if err != nil {
		t.Fatalf("%s: bodyBase64: %v", v.Name, err)
	}
	header := "" // what http.Header.Get gives for an absent header
	if v.Header != nil {
		header = *v.Header
	}
	switch v.Variant {
	case "A":
		seconds := math.Floor(v.Now)
		now := time.Unix(int64(seconds), int64(math.Round((v.Now-seconds)*1e9)))
		tolerance := shortlinkwebhooks.DefaultTolerance
		if v.ToleranceSeconds != nil {
			tolerance = time.Duration(*v.ToleranceSeconds * float64(time.Second))
		}
		return shortlinkwebhooks.VerifyVariantA(body, header, []byte(v.Secret), now, tolerance)
	case "B":
		return shortlinkwebhooks.VerifyVariantB(body, header, []byte(v.Secret))
	}
	t.Fatalf("%s: unknown variant %q", v.Name, v.Variant)
	return false
}

func TestVectors(t *testing.T) {
	cases := loadVectors(t, filepath.Join("..", "..", "vectors.json"))
	if len(cases) < 50 {
		t.Fatalf("only %d vectors", len(cases))
	}
	for _, v := range cases {
		if got := verify(t, v); got != v.Expected {
			t.Errorf("%s: got %v, want %v", v.Name, got, v.Expected)
		}
	}
}

func TestEmptySecretPanics(t *testing.T) {
	for name, call := range map[string]func(){
		"A": func() {
			shortlinkwebhooks.VerifyVariantA([]byte("{}"), "t=1,v1=x", nil, time.Now(), shortlinkwebhooks.DefaultTolerance)
		},
		"B": func() { shortlinkwebhooks.VerifyVariantB([]byte("{}"), "00", []byte{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: an empty secret did not panic", name)
				}
			}()
			call()
		}()
	}
}

// A t centuries from now must not overflow the age into "within the tolerance".
func TestFarAwayT(t *testing.T) {
	body := []byte("{}")
	for _, ts := range []string{"999999999999", "0"} {
		mac := hmac.New(sha256.New, []byte("whsec_x"))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		header := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
		if shortlinkwebhooks.VerifyVariantA(body, header, []byte("whsec_x"), time.Unix(1767268800, 0), shortlinkwebhooks.DefaultTolerance) {
			t.Errorf("t=%s verified in 2026", ts)
		}
	}
}

func TestDeliveriesOfARunningServer(t *testing.T) {
	path := os.Getenv("SHORTLINK_WEBHOOK_DELIVERIES")
	if path == "" {
		t.Skip("SHORTLINK_WEBHOOK_DELIVERIES not set")
	}
	cases := loadVectors(t, path)
	if len(cases) == 0 {
		t.Fatal("no deliveries in " + path)
	}
	for _, v := range cases {
		got := verify(t, v)
		// The calling test reads these lines, so it can tell every delivery was checked.
		fmt.Printf("delivery %s: %v\n", v.Name, got)
		if got != v.Expected {
			t.Errorf("%s: got %v, want %v", v.Name, got, v.Expected)
		}
	}
}

func ExampleVerifyVariantB() {
	body := []byte(`{"id":"evt_1","type":"link.created"}`)
	mac := hmac.New(sha256.New, []byte("whsec_x"))
	mac.Write(body)
	signature := hex.EncodeToString(mac.Sum(nil))
	fmt.Println(shortlinkwebhooks.VerifyVariantB(body, signature, []byte("whsec_x")))
	fmt.Println(shortlinkwebhooks.VerifyVariantB(append(body, ' '), signature, []byte("whsec_x")))
	// Output:
	// true
	// false
}
