package canon

import (
	"math"
	"strconv"
	"strings"
)

// maxDecimalDigits is the most significant digits numberValue hands to
// strconv.ParseFloat. ParseFloat keeps 800 digits of a long decimal and then
// misplaces its point (1 followed by 800 zeros and e-800 parses as 0.1, not
// 1), and caps exponents from 100,000 up. So zeros at either end move into
// the exponent, which is bounded, and digits past maxDecimalDigits are
// dropped, a 1 standing for them (the last is never 0): a double, and a
// halfway point between two, has at most 767 significant digits, so none
// lies between the number and what is parsed, and both round alike.
const maxDecimalDigits = 780

// Exponents, in the form 0.d₁d₂… × 10^exp, past which a number overflows a
// double or underflows to zero whatever its digits: a double lies between
// about 4.9e-324 and 1.8e308.
const (
	overflowExp  = 310
	underflowExp = -400
)

// numberValue returns the double nearest the JSON number text, whose
// grammar the caller has checked; inf is set when it overflows a double.
// A number that underflows is ±0, as ParseFloat has it.
func numberValue(text string) (f float64, inf bool) {
	neg := strings.HasPrefix(text, "-")
	mantissa, exponent := strings.TrimPrefix(text, "-"), ""
	if i := strings.IndexAny(mantissa, "eE"); i >= 0 {
		mantissa, exponent = mantissa[:i], mantissa[i+1:]
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	// The value is 0.digits × 10^exp.
	digits := whole + frac
	exp := int64(len(whole))
	trimmed := strings.TrimLeft(digits, "0")
	exp -= int64(len(digits) - len(trimmed))
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return signed(0, neg), false
	}
	exp = addExponent(exp, exponent)
	switch {
	case exp > overflowExp:
		return signed(math.Inf(1), neg), true
	case exp < underflowExp:
		return signed(0, neg), false
	}
	if len(digits) > maxDecimalDigits {
		// What is dropped ends in a digit that is not 0: a 1 stands for it.
		digits = digits[:maxDecimalDigits] + "1"
	}
	f, _ = strconv.ParseFloat("0."+digits+"e"+strconv.FormatInt(exp, 10), 64) // ErrRange comes with ±Inf
	return signed(f, neg), math.IsInf(f, 0)
}

// addExponent returns exp plus the exponent text (digits with an optional
// sign), saturating far beyond any exponent that matters.
func addExponent(exp int64, text string) int64 {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(strings.TrimLeft(text, "+-"), "0")
	const limit = 1 << 40
	if len(text) > 12 {
		if neg {
			return -limit
		}
		return limit
	}
	e, _ := strconv.ParseInt("0"+text, 10, 64)
	if neg {
		e = -e
	}
	return exp + e
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}
