package progress

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	const mib = 1 << 20
	all := frame{hasBytes: true, hasRecords: true, hasOps: true}
	with := func(f frame, edit func(*frame)) frame { edit(&f); return f }
	tests := []struct {
		name string
		f    frame
		want string
	}{
		{
			name: "known total",
			f: with(all, func(f *frame) {
				f.bytes, f.total, f.byteRate = 1300*mib, 4096*mib, 412*mib
				f.recordRate, f.ops = 1_830_000, 52_301
			}),
			want: "1.27 GiB of 4.00 GiB, 412 MiB/s, 1.83M records/s, 52.3k operations",
		},
		{
			name: "unknown total from stdin",
			f: with(all, func(f *frame) {
				f.bytes, f.total, f.byteRate = 1300*mib, -1, 412*mib
				f.recordRate, f.ops = 1_830_000, 52_301
			}),
			want: "1.27 GiB, 412 MiB/s, 1.83M records/s, 52.3k operations",
		},
		{
			name: "zero total is unknown",
			f:    with(all, func(f *frame) { f.bytes, f.total = 10, 0 }),
			want: "10 B, 0 B/s, 0 records/s, 0 operations",
		},
		{
			name: "a file grown past its size",
			f:    with(all, func(f *frame) { f.bytes, f.total, f.ops = 3*mib, 2*mib, 7 }),
			want: "3.00 MiB of 2.00 MiB, 0 B/s, 0 records/s, 7 operations",
		},
		{
			name: "nil counters are left out",
			f:    frame{hasOps: true, ops: 12},
			want: "12 operations",
		},
		{
			name: "nothing to show",
			f:    frame{},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, render(tt.f)); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    float64
		want string
	}{
		{-5, "0 B"},
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.00 KiB"},
		{1536, "1.50 KiB"},
		{100 << 10, "100 KiB"},
		{15.3 * (1 << 20), "15.3 MiB"},
		{1 << 30, "1.00 GiB"},
		{1 << 40, "1.00 TiB"},
		{1 << 62, "4.00 EiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatBytes(tt.n); got != tt.want {
				t.Errorf("formatBytes(%v) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    float64
		want string
	}{
		{0, "0"},
		{0.4, "0"},
		{999, "999"},
		{1000, "1.00k"},
		{52_301, "52.3k"},
		{1_830_000, "1.83M"},
		{2.5e9, "2.50G"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatCount(tt.n); got != tt.want {
				t.Errorf("formatCount(%v) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}
