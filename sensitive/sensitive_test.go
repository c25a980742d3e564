package sensitive

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Credential-shaped test values are assembled from parts, so that secret
// scanners reading this file do not mistake them for leaked keys.
const random62 = "Zx8fQ2pLr9TmVb4KcW7nYs1HdG3jEa6uXo5iRk0PqB"

// tok returns n characters of random-looking base62.
func tok(n int) string {
	return strings.Repeat(random62, n/len(random62)+1)[:n]
}

func TestCheckCatches(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"e-mail alone", "alice@example.com", "e-mail address"},
		{"e-mail inside an id", "op:send-email:bob.smith+x@corp.co.uk", "e-mail address"},
		{"e-mail in capitals", "notify-ALICE@EXAMPLE.COM-v2", "e-mail address"},
		{"e-mail percent-encoded", "reset?user=alice%40example.com", "e-mail address"},
		{"e-mail before a full stop", "mail alice@example.com.", "e-mail address"},
		{"e-mail with an international domain", "bob@bücher.de", "e-mail address"},
		{"git as an address", "notify:git@example.com", "e-mail address"},
		{"secret joined to a publishable key", "pk_" + "live_x-Zx8Qm2vLr7Tn4Kw9Bp3Hs6Yc1Df5Gj0Az", "high-entropy token (33 chars)"},
		{"address before a colon", "notify:bob@example.com:retry-2", "e-mail address"},
		{"e-mail beside a Git remote", "git@github.com:org/repo.git:ann@corp.com", "e-mail address"},
		{"Stripe live secret key", "charge:sk_" + "live_" + tok(24), "Stripe live secret key prefix sk_live_"},
		{"Stripe test secret key", "sk_" + "test_" + tok(99), "Stripe test secret key prefix sk_test_"},
		{"Stripe restricted key", "key=rk_" + "live_" + tok(24) + ":v2", "Stripe live restricted key prefix rk_live_"},
		{"Stripe webhook secret", "whsec_" + tok(32), "Stripe webhook secret prefix whsec_"},
		{"GitHub classic token", "gh" + "p_" + tok(36), "GitHub token prefix ghp_"},
		{"GitHub OAuth token inside an id", "ci:gh" + "o_" + tok(36) + ":retry", "GitHub token prefix gho_"},
		{"GitHub server token", "gh" + "s_" + tok(36), "GitHub token prefix ghs_"},
		{"GitHub fine-grained token", "github" + "_pat_" + tok(22) + "_" + tok(59), "GitHub token prefix github_pat_"},
		{"Slack bot token", "xo" + "xb-123456789012-1234567890123-" + tok(24), "Slack token prefix xoxb-"},
		{"Slack user token", "slack/xo" + "xp-" + "123456789012-" + tok(12), "Slack token prefix xoxp-"},
		{"AWS access key id", "AKIA" + "IOSFODNN7EXAMPLE", "AWS access key id"},
		{"AWS temporary key id in an id", "op:aws:AS" + "IAY34FZKBOKMUTVV7A:rotate", "AWS temporary access key id"},
		{"GitLab token", "glpat-" + tok(20), "GitLab token prefix glpat-"},
		{"Google API key", "maps-AI" + "za" + tok(35), "Google API key prefix AIza"},
		{"npm token", "npm_" + tok(36), "npm token prefix npm_"},
		{"Anthropic key", "sk-" + "ant-api03-" + tok(80), "Anthropic API key prefix sk-ant-"},
		{"signed JWT", "session:ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + tok(43), "JWT"},
		{"unsigned JWT", "ey" + "JhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.", "JWT"},
		{"random base62", "op:import:" + tok(40), "high-entropy token (40 chars)"},
		{"AWS secret access key", "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY", "high-entropy token (40 chars)"},
		{"url-safe random key", "idem-" + "q3_Rk8vLm2-Xw9ZpT4yHa7NcB1sD6fGuJ0eKiO5tWxE", "high-entropy token (43 chars)"},
		{"Stripe client secret", "pi_3MtwBwLkdIwHu7ix28a3tqPa_" + "secret_YrKJUKribcBjcG8HVhfZluoGH", "high-entropy token (57 chars)"},
		{"base64 data", "payload:SGVsbG8gV29ybGQhIFRoaXMgaXMgYSB0ZXN0IG9mIGJhc2U2NA", "high-entropy token (50 chars)"},
		{"URL with a password", "https://admin:" + "hunter2@db.example.com/orders", "URL with embedded credentials"},
		{"URL with only a password", "redis://:" + "hunter2@cache:6379", "URL with embedded credentials"},
		{"password assignment", "login:user=bob;pass" + "word=hunter2", "credential assignment password="},
		{"API key assignment any case", "call?API_KEY=" + "abc123", "credential assignment api_key="},
		{"private key", "-----BEGIN RSA PRIVATE" + " KEY-----", "private key block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, found := Check(tt.in)
			if !found {
				t.Fatalf("Check(%q) found nothing, want %q", tt.in, tt.want)
			}
			if diff := cmp.Diff(tt.want, reason); diff != "" {
				t.Errorf("Check(%q) reason (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCheckLeavesAlone(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"UUID", "7f3c9a2e-1b4d-4c8e-9f2a-0123456789ab"},
		{"UUID without dashes", "7f3c9a2e1b4d4c8e9f2a0123456789ab"},
		{"UUID in capitals", "7F3C9A2E-1B4D-4C8E-9F2A-0123456789AB"},
		{"idempotency key from a UUID", "idem-7f3c9a2e-1b4d-4c8e-9f2a-0123456789ab"},
		{"capitalised word and UUID", "Order-7f3c9a2e-1b4d-4c8e-9f2a-0123456789ab"},
		{"ticket key", "ticket-481:create-task:v1"},
		{"operation about e-mail", "op-email-3"},
		{"SHA-256 digest", "sha256:" + strings.Repeat("9f86d081884c7d65", 4)},
		{"SHA-512 digest", strings.Repeat("cf83e1357eefb8bd", 8)},
		{"git commit", "deploy:da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"subresource integrity digest", "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		{"labelled base64 digest", "blob:sha512:" + "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="},
		{"ULID", "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"two ULIDs", "01ARZ3NDEKTSV4RRFFQ69G5FAV01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"KSUID", "0ujtsYcgvSTl8PAuAdqWYSMnLOv"},
		{"timestamp", "2024-05-01T12:34:56.789+02:00"},
		{"epoch milliseconds", "op-1714567890123-retry-2"},
		{"W3C trace parent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"X-Ray trace id", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"},
		{"slug", "create-ticket-for-customer-account-12345-retry"},
		{"CamelCase", "CreateTicketForCustomerAccount12345Retry"},
		{"CamelCase with acronyms", "S3BucketPolicyUpdateForProdUsEast1Region2024Q3"},
		{"CamelCase with hex", "EC2InstanceLaunchRequestI0abc123def456789"},
		{"CamelCase with numbers", "OAuth2TokenRefreshForGitHubAppInstallation12345678"},
		{"Stripe charge id", "ch_3MqLiJ2eZvKYlo2C1gK0XaY9"},
		{"Stripe charge id in a slug", "refund-for-ch_3MqLiJ2eZvKYlo2C1gK0XaY9-attempt-2"},
		{"Stripe ids", "subscription:sub_1MowQVLkdIwHu7ixeRlqHVzs:update-price:price_1MoBy5LkdIwHu7ixZhnattbh"},
		{"Stripe publishable key", "pk_" + "live_" + tok(24)},
		{"Stripe publishable key at full length", "pk_" + "live_51" + tok(97)},
		{"Stripe test publishable key in an id", "checkout:pk_" + "test_51" + tok(97) + ":retry"},
		{"prefix inside a word", "risk_" + "live_feed_" + tok(24)},
		{"prefix without a key", "sk_" + "live_rotation"},
		{"AWS key id too long", "AKIA" + "IOSFODNN7EXAMPLE2"},
		{"Kubernetes pod", "k8s-default-ingress-nginx-controller-7d9f8b6c5d-x2x7k"},
		{"cloud resource path", "projects/my-project/locations/us-central1/queues/Default"},
		{"ARN", "arn:aws:lambda:us-east-1:123456789012:function:ProcessOrder"},
		{"package version", "npm:@scope/pkg@1.2.3"},
		{"image digest", "registry/app@sha256:" + strings.Repeat("ab12", 16)},
		{"host without a domain", "deploy@localhost"},
		{"Git remote", "mirror:git@github.com:org/repo.git"},
		{"Git remote with a port-like path", "git@gitlab.example.com:2222/group/repo"},
		{"at sign alone", "team@"},
		{"URL without credentials", "postgres://db.example.com:5432/orders?sslmode=require"},
		{"password without value", "reset-password-for-user-42;password="},
		{"token as a word", "op:token:refresh-42"},
		{"Slack prefix in a name", "xo" + "xb-token-rotation"},
		{"JWT header alone", "ey" + "JhbGciOiJIUzI1NiJ9"},
		{"short random id", "x2Y4k9P1m7Q3w8R6"},
		{"repetition", strings.Repeat("Ab1", 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if reason, found := Check(tt.in); found {
				t.Errorf("Check(%q) = %q, want nothing found", tt.in, reason)
			}
		})
	}
}

// reasonIsConstant reports whether reason is one Check may give: fixed text,
// or the high-entropy reason with a length, never text from the input.
func reasonIsConstant(reason string) bool {
	switch reason {
	case privateKeyReason, urlCredentialsReason, jwtReason, emailReason:
		return true
	}
	for _, r := range prefixRules {
		if reason == r.reason {
			return true
		}
	}
	for _, r := range assignmentReasons {
		if reason == r {
			return true
		}
	}
	n, ok := strings.CutPrefix(reason, "high-entropy token (")
	n, ok2 := strings.CutSuffix(n, " chars)")
	return ok && ok2 && n != "" && strings.Trim(n, "0123456789") == ""
}

// FuzzCheck checks that Check never panics, is deterministic, gives a reason
// exactly when it finds something and only a reason from its fixed set, and
// still finds what it found once the input is embedded between other words.
// Seeds live in testdata/fuzz/FuzzCheck.
func FuzzCheck(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		reason, found := Check(s)
		again, foundAgain := Check(s)
		if reason != again || found != foundAgain {
			t.Fatalf("Check(%q) gave %q,%v then %q,%v", s, reason, found, again, foundAgain)
		}
		if found != (reason != "") {
			t.Fatalf("Check(%q) = %q, %v: a reason exactly when found", s, reason, found)
		}
		if want := checkEvery(s); reason != want {
			t.Fatalf("Check(%q) = %q, but every detector run in turn finds %q", s, reason, want)
		}
		if !found {
			return
		}
		if !reasonIsConstant(reason) {
			t.Fatalf("Check(%q) reason %q is not one of the fixed reasons", s, reason)
		}
		if _, ok := Check("op " + s + " end"); !ok {
			t.Fatalf("Check(%q) = %q, but nothing once embedded between words", s, reason)
		}
	})
}

// checkEvery is Check without cues: every detector runs, in order.
func checkEvery(s string) string {
	if len(s) < 6 {
		return ""
	}
	for _, d := range detectors {
		if reason := d.detect(s); reason != "" {
			return reason
		}
	}
	return ""
}

// TestCuesRuleOutNothing checks that a detector Check skips for want of its
// cue would have found nothing: on strings pieced together from what the
// detectors look for, Check agrees with running every detector.
func TestCuesRuleOutNothing(t *testing.T) {
	pieces := []string{
		"-", "_", ".", ":", "=", "@", "%40", "%", "/", " ", "://", "user:pw@", "eyJ", "eyJhbGciOiJIUzI1NiJ9",
		"PRIVATE KEY-----", "password", "api_key", "example", ".com", "op", "7f3c9a2e", "AKIA", "ASIA",
		"ABCDEFGHIJKLMNOP", tok(8), tok(24), tok(33), "sk_live_", "xoxb-", "ghp_", "github_pat_", "npm_", "AIza",
		"glpat-", "whsec_", "sk-ant-", "0123456789", "ü",
	}
	for _, s := range benchIDs {
		if got, want := reasonOf(s), checkEvery(s); got != want {
			t.Errorf("Check(%q) = %q, every detector: %q", s, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	found := 0
	for range 200_000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		got, want := reasonOf(s), checkEvery(s)
		if got != want {
			t.Fatalf("Check(%q) = %q, but every detector run in turn finds %q", s, got, want)
		}
		if got != "" {
			found++
		}
	}
	if found < 10_000 {
		t.Fatalf("only %d of the generated strings were flagged: the test would miss a wrong cue", found)
	}
}

func reasonOf(s string) string {
	reason, _ := Check(s)
	return reason
}

var benchIDs = []string{
	"op-ticket-42",
	"idem-7f3c9a2e-1b4d-4c8e-9f2a-0123456789ab",
	"create-ticket-for-customer-account-12345-retry",
	"subscription:sub_1MowQVLkdIwHu7ixeRlqHVzs:update-price:price_1MoBy5LkdIwHu7ixZhnattbh",
	"CreateTicketForCustomerAccount12345Retry",
	"op:send-email:bob.smith+x@corp.co.uk",
	"op:import:" + tok(40),
}

func BenchmarkCheck(b *testing.B) {
	var size int64
	for _, s := range benchIDs {
		size += int64(len(s))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchIDs {
			Check(s)
		}
	}
}

// BenchmarkCheckLedgerIDs checks ids shaped as most ledgers' are, with
// nothing for any detector to start from.
func BenchmarkCheckLedgerIDs(b *testing.B) {
	ids := []string{"op-7e4c676e-0000483", "idem-910a782379dc7c22", "att-fcaec3c1a086", "ticket-481:create-task:v1"}
	for b.Loop() {
		for _, s := range ids {
			Check(s)
		}
	}
}
