package canon

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// exactValue is numberValue's reference: the rational the text names,
// rounded once by math/big. It is slow for large exponents, so callers
// keep them small.
func exactValue(t testing.TB, text string) (float64, bool) {
	t.Helper()
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", text)
	}
	f, _ := r.Float64()
	if strings.HasPrefix(text, "-") && f == 0 {
		f = math.Copysign(0, -1)
	}
	return f, math.IsInf(f, 0)
}

func TestNumberValue(t *testing.T) {
	zeros := strings.Repeat("0", 800)
	for _, tc := range []struct {
		name, text string
		want       float64
		inf        bool
	}{
		{"integer", "1050", 1050, false},
		{"fraction", "0.1", 0.1, false},
		{"exponent", "1.05e3", 1050, false},
		{"capital E and plus", "1.05E+3", 1050, false},
		{"negative", "-2.5e-1", -0.25, false},
		{"negative zero", "-0.0e7", math.Copysign(0, -1), false},
		{"zero with a huge exponent", "0e999999999999999999", 0, false},
		{"largest double", "1.7976931348623157e308", math.MaxFloat64, false},
		{"just past the largest", "1.7976931348623159e308", math.Inf(1), true},
		{"overflow", "1e309", math.Inf(1), true},
		{"negative overflow", "-1e309", math.Inf(-1), true},
		{"smallest subnormal", "5e-324", math.SmallestNonzeroFloat64, false},
		{"underflow", "1e-400", 0, false},
		{"huge exponent", "1e99999999999999999999", math.Inf(1), true},
		{"tiny exponent", "1e-99999999999999999999", 0, false},
		// strconv.ParseFloat keeps 800 digits and misplaces the point past
		// them: these came out 0.1, 1, 1e308 and 0.
		{"801 digits, one significant", "1" + zeros + "e-800", 1, false},
		{"801 significant digits", "1" + zeros[:799] + "1e-799", 10, false},
		{"801 digits overflowing", "1" + zeros + "e-491", math.Inf(1), true},
		{"10011 digits", "1" + strings.Repeat("0", 10010) + "e-10010", 1, false},
		{"exponent past 100000", "0." + strings.Repeat("0", 99999) + "9e100000", 9, false},
		{"leading zeros of a fraction", "0." + zeros + "125e800", 0.125, false},
		{"a million digits", "1." + strings.Repeat("3", 1_000_010), 1.3333333333333333, false},
		{"halfway, then a digit far past it", "9007199254740993." + strings.Repeat("0", 900) + "1", 9007199254740994, false},
		{"exactly halfway, long", "9007199254740993." + strings.Repeat("0", 900), 9007199254740992, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, inf := numberValue(tc.text)
			if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) || inf != tc.inf {
				t.Errorf("numberValue(%.40q) = %v, %v; want %v, %v", tc.text, got, inf, tc.want, tc.inf)
			}
		})
	}
}

// FuzzNumberValue holds numberValue to the exact reference on numbers of
// any digits, the long ones included, with exponents kept small enough for
// the reference to compute.
func FuzzNumberValue(f *testing.F) {
	f.Add(false, "1", "", int16(0))
	f.Add(true, "123", "456", int16(-5))
	f.Add(false, "1"+strings.Repeat("0", 800), "", int16(-800))
	f.Add(false, "17976931348623157", "", int16(292))
	f.Add(false, "", "0000000000000000000000000000000000000000000000000000000000000049", int16(-260))
	f.Fuzz(func(t *testing.T, neg bool, whole, frac string, exp int16) {
		digitsOnly := func(s string) string {
			return strings.Map(func(r rune) rune {
				if r < '0' || r > '9' {
					return -1
				}
				return r
			}, s)
		}
		whole, frac = digitsOnly(whole), digitsOnly(frac)
		if whole == "" {
			whole = "0"
		}
		text := whole
		if frac != "" {
			text += "." + frac
		}
		text += "e" + strconv.Itoa(int(exp))
		if neg {
			text = "-" + text
		}
		got, gotInf := numberValue(text)
		want, wantInf := exactValue(t, text)
		if got != want || math.Signbit(got) != math.Signbit(want) || gotInf != wantInf {
			t.Errorf("numberValue(%q) = %v, %v; want %v, %v", text, got, gotInf, want, wantInf)
		}
	})
}

// halfSubnormal is 2^-1075 written out: halfway between 0 and the smallest
// subnormal double.
var halfSubnormal = new(big.Float).SetMantExp(big.NewFloat(1), -1075).Text('e', 800)

// TestNumberValueMatchesExact checks the table's long and far cases against
// the exact reference too, so that the table cannot hold a wrong value.
func TestNumberValueMatchesExact(t *testing.T) {
	zeros := strings.Repeat("0", 800)
	for _, text := range []string{
		"1" + zeros + "e-800", "1" + zeros[:799] + "1e-799", "1" + zeros + "e-491",
		"0." + strings.Repeat("0", 99999) + "9e100000", "0." + zeros + "125e800",
		"123456789" + zeros + "987654321e-700", "-4.9406564584124654e-324", "2.4703282292062328e-324",
		// The halfway point between the two smallest subnormals, written
		// out in full (751 significant digits), and just past it.
		halfSubnormal, halfSubnormal + "1",
	} {
		got, gotInf := numberValue(text)
		want, wantInf := exactValue(t, text)
		if got != want || gotInf != wantInf {
			t.Errorf("numberValue(%.40q) = %v, %v; want %v, %v", text, got, gotInf, want, wantInf)
		}
	}
}
