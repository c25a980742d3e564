package sensitive

import (
	"fmt"
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
		{"e-mail after a run of %40", strings.Repeat("%40", 10_000) + "example.com", "e-mail address"},
		{"e-mail after a run of symbols", strings.Repeat("!", 10_000) + "a%40example.com", "e-mail address"},
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
		{"run of %40", strings.Repeat("%40", 10_000)},
		{"run of %40 after symbols", strings.Repeat("!", 10_000) + strings.Repeat("%40", 10_000)},
		{"run of local parts and %40", strings.Repeat("a.%40", 10_000)},
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
// still finds what it found once the input is embedded between other words;
// and that email agrees with refEmail.
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
		if got, want := email(s), refEmail(s); got != want {
			t.Fatalf("email(%q) = %q, but the reference finds %q", s, got, want)
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

func BenchmarkCheck(b *testing.B) { benchmarkCheck(b, benchIDs) }

// benchmarkCheck checks each of ids in turn, counting their bytes.
func benchmarkCheck(b *testing.B, ids []string) {
	var size int64
	for _, s := range ids {
		size += int64(len(s))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range ids {
			Check(s)
		}
	}
}

// BenchmarkCheckLedgerIDs checks ids shaped as most ledgers' are, with
// nothing for any detector to start from.
func BenchmarkCheckLedgerIDs(b *testing.B) {
	benchmarkCheck(b, []string{"op-7e4c676e-0000483", "idem-910a782379dc7c22", "att-fcaec3c1a086", "ticket-481:create-task:v1"})
}

// BenchmarkCheckAtSignIDs checks ids with an @ or a %, on which the e-mail
// detector runs: addresses, and what looks like one and is not.
func BenchmarkCheckAtSignIDs(b *testing.B) {
	ids := []string{
		"op:send-email:bob.smith+x@corp.co.uk",
		"reset?user=alice%40example.com",
		"npm:@scope/pkg@1.2.3",
		"mirror:git@github.com:org/repo.git",
		"deploy@localhost",
		"discount-50%-order-481",
	}
	benchmarkCheck(b, ids)
}

// adversarialIDs are ids of about n bytes built to make a detector rescan
// what it has read: long runs of what each detector starts from or reads
// over (at signs, %40, separators, dots, "=", "://", "eyJ", prefixes, base64
// characters), none of them flagged early.
func adversarialIDs(n int) []struct{ name, id string } {
	rep := func(unit string) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }
	half := func(a, b string) string { return rep(a)[:n/2] + rep(b)[:n-n/2] }
	return []struct{ name, id string }{
		{"pct40", rep("%40")},
		{"local-pct40", rep("a%40")},
		{"symbols-then-pct40", half("!", "%40")},
		{"dots-then-pct40", half(".", "%40")},
		{"at", rep("@")},
		{"local-at", rep("a@")},
		{"at-domain", rep("x@1.2-")},
		{"pct40-domain", rep("%40ab.c")},
		{"equals", rep("=")},
		{"assignments", rep("password=;")},
		{"dots", rep(".")},
		{"jwt-headers", rep("eyJhbGciOiJIUzI1NiJ9:")},
		{"jwt-dots", rep(".eyJ")},
		{"url-schemes", rep("://")},
		{"url-authority", "://" + rep("a:")},
		{"separators", rep("-_")},
		{"base64-repetition", rep("Ab1")},
		{"base64-segments", rep("Ab1-")},
		{"prefixes", rep("sk_live_")},
		{"aws-prefix", "AKIA" + rep("A")},
		{"private-key-spaces", rep(" PRIVATE KEY----")},
	}
}

// BenchmarkCheckAdversarial runs Check on each adversarial id at two sizes:
// with Check linear in its input, the MB/s of the two sizes are alike.
func BenchmarkCheckAdversarial(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10} {
		for _, tt := range adversarialIDs(size) {
			b.Run(fmt.Sprintf("%s/%dKiB", tt.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(tt.id)))
				for b.Loop() {
					Check(tt.id)
				}
			})
		}
	}
}

// refEmail is email as it was before it read the input once forward: each
// at sign reads back over the local part before it, which is quadratic on
// "%40%40%40…" but plainly what the rules say. TestEmailMatchesReference and
// FuzzCheck hold email to it. Its helpers are copied too, as they were.
func refEmail(s string) string {
	for i := 0; i < len(s); i++ {
		var after int
		switch {
		case s[i] == '@':
			after = i + 1
		case strings.HasPrefix(s[i:], "%40"):
			after = i + 3
		default:
			continue
		}
		start := i
		for start > 0 && refIsLocal(s[start-1]) {
			start--
		}
		if !refValidLocal(s[start:i]) {
			continue
		}
		end := after + run(s[after:], refIsDomain)
		if refValidDomain(s[after:end]) && !(s[start:i] == "git" && strings.HasPrefix(s[end:], ":")) {
			return emailReason
		}
	}
	return ""
}

func refIsLocal(c byte) bool {
	return isAlnum(c) || c >= 0x80 || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0
}

func refIsDomain(c byte) bool {
	return isAlnum(c) || c >= 0x80 || c == '-' || c == '.'
}

func refValidLocal(local string) bool {
	local = strings.TrimLeft(local, ".")
	if local == "" || strings.HasSuffix(local, ".") {
		return false
	}
	for i := 0; i < len(local); i++ {
		if isAlnum(local[i]) || local[i] >= 0x80 {
			return true
		}
	}
	return false
}

func refValidDomain(d string) bool {
	labels := strings.Split(d, ".")
	if labels[0] == "" || labels[0][0] == '-' {
		return false
	}
	for _, l := range labels[1:] {
		if l == "" {
			return false
		}
		letters := 0
		for letters < len(l) && (isUpper(l[letters]) || isLower(l[letters]) || l[letters] >= 0x80) {
			letters++
		}
		if letters >= 2 {
			return true
		}
	}
	return false
}

// refCheck is Check with refEmail in place of email.
func refCheck(s string) string {
	if len(s) < 6 {
		return ""
	}
	cues := cuesOf(s)
	for _, d := range detectors {
		if cues&d.cue == 0 {
			continue
		}
		detect := d.detect
		if d.cue == cueAt {
			detect = refEmail
		}
		if reason := detect(s); reason != "" {
			return reason
		}
	}
	return ""
}

// emailPieces make up the strings TestEmailMatchesReference draws: the
// bytes email treats apart (at signs, the parts of %40, dots, the local
// part's symbols, the domain's hyphen, bytes that end both), letters and
// digits, a multi-byte letter, and a few words that make a domain or a Git
// remote likely.
var emailPieces = []string{
	"%", "4", "0", "@", ".", "a", "b", "Z", "-", "_", "+", "=", "/", ":", "!", "~", " ", "ü", "\xff",
	"%40", "%40", "@", "@", "git", "ab", ".co", ".com", "x.io", "1.2",
}

// TestEmailMatchesReference checks email, and Check with it, against
// refEmail on many random strings over emailPieces, short and long.
func TestEmailMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	flagged, total := 0, 0
	check := func(s string) {
		total++
		want := refEmail(s)
		if diff := cmp.Diff(want, email(s)); diff != "" {
			t.Fatalf("email(%q) (-reference +got):\n%s", s, diff)
		}
		if diff := cmp.Diff(refCheck(s), reasonOf(s)); diff != "" {
			t.Fatalf("Check(%q) (-reference +got):\n%s", s, diff)
		}
		if want != "" {
			flagged++
		}
	}
	for range 300_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(emailPieces[r.IntN(len(emailPieces))])
		}
		check(b.String())
	}
	for range 300 {
		var b strings.Builder
		for range 200 + r.IntN(800) {
			b.WriteString(emailPieces[r.IntN(len(emailPieces))])
		}
		check(b.String())
	}
	// Both answers must be common, or the test could not tell a detector
	// that flags everything, or nothing, from the reference.
	if flagged < 5_000 || total-flagged < 5_000 {
		t.Fatalf("%d of %d generated strings were flagged: too few or too many to compare the detectors", flagged, total)
	}
}
