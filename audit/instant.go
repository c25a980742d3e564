package audit

import (
	"errors"
	"strconv"
	"time"
)

// Instant is a point in time at nanosecond precision. It is compared as an
// instant, never as text, so "10:00:00+02:00" equals "08:00:00Z".
type Instant struct {
	Sec  int64 // seconds since 1970-01-01T00:00:00Z
	Nsec int32 // 0..999,999,999
}

// Before reports whether i is strictly earlier than j.
func (i Instant) Before(j Instant) bool {
	return i.Sec < j.Sec || (i.Sec == j.Sec && i.Nsec < j.Nsec)
}

// Sub returns the duration i-j, saturated as time.Time.Sub does: past
// about 292 years either way it is the largest or the least Duration.
func (i Instant) Sub(j Instant) time.Duration { return i.Time().Sub(j.Time()) }

// Beyond reports whether i is later than j by more than d, exactly, even
// where i.Sub(j) saturates: d may be the largest Duration, and instants
// 9,999 years apart are further apart than that.
func (i Instant) Beyond(j Instant, d time.Duration) bool {
	sec, nsec := i.Sec-j.Sec, int64(i.Nsec)-int64(j.Nsec)
	if nsec < 0 {
		sec, nsec = sec-1, nsec+int64(time.Second)
	}
	dSec, dNsec := int64(d/time.Second), int64(d%time.Second)
	if dNsec < 0 {
		dSec, dNsec = dSec-1, dNsec+int64(time.Second)
	}
	return sec > dSec || sec == dSec && nsec > dNsec
}

// Time converts i to a time.Time in UTC.
func (i Instant) Time() time.Time { return time.Unix(i.Sec, int64(i.Nsec)).UTC() }

// String formats i as RFC 3339 in UTC with as many fraction digits as needed.
func (i Instant) String() string { return i.Time().Format(time.RFC3339Nano) }

var (
	errTime      = errors.New(`want RFC 3339 date-time "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)"`)
	errTimeRange = errors.New("date-time out of range")
	errFraction  = errors.New("fraction of seconds must have 1 to 9 digits")
)

// ParseInstant parses an RFC 3339 date-time exactly as SPEC defines it: a
// fraction of 1 to 9 digits, 'T' and 'Z' in either case, a mandatory offset,
// no leap second. time.Parse is both laxer and slower than this, and this
// runs once per record.
func ParseInstant(s string) (Instant, error) {
	// YYYY-MM-DDTHH:MM:SS is 19 bytes, the shortest offset "Z" one more.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return Instant{}, errTime
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	second, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return Instant{}, errTime
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59 {
		return Instant{}, errTimeRange
	}
	rest := s[19:]
	var nsec int32
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		frac := rest[1:n]
		if len(frac) < 1 || len(frac) > 9 {
			return Instant{}, errFraction
		}
		v, _ := strconv.Atoi(frac)
		for k := len(frac); k < 9; k++ {
			v *= 10
		}
		nsec = int32(v)
		rest = rest[n:]
	}
	var offset int64
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, okh := digits(rest[1:3])
		om, okm := digits(rest[4:6])
		if !okh || !okm || oh > 23 || om > 59 {
			return Instant{}, errTime
		}
		offset = int64(oh*3600 + om*60)
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return Instant{}, errTime
	}
	sec := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+second) - offset
	return Instant{Sec: sec, Nsec: nsec}, nil
}

func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to the proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
