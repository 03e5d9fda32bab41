package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFormatBytes checks printable bytes print as is and others Go-quoted.
func TestFormatBytes(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, ""},
		{"ascii", []byte("hello"), "hello"},
		{"spaces kept", []byte("a b"), "a b"},
		{"punctuation", []byte(`a"b\c`), `a"b\c`},
		{"leading quote quoted", []byte(`"x"`), `"\"x\""`},
		{"utf-8", []byte("värde ✓"), "värde ✓"},
		{"tab quoted", []byte("a\tb"), `"a\tb"`},
		{"newline quoted", []byte("line\n"), `"line\n"`},
		{"nul", []byte{0}, `"\x00"`},
		{"invalid utf-8", []byte{'a', 0xff}, `"a\xff"`},
		{"del", []byte{0x7f}, `"\x7f"`},
		{"non-printable rune", []byte("a\u200bb"), `"a\u200bb"`},
		{"utf-8 kept inside quotes", []byte("é\n"), `"é\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatBytes(tt.in); got != tt.want {
				t.Fatalf("formatBytes(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestFormatListValue checks long values are cut in listings.
func TestFormatListValue(t *testing.T) {
	long := strings.Repeat("x", 250)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"short", []byte("abc"), "abc"},
		{"exactly the limit", []byte(long[:maxListValue]), long[:maxListValue]},
		{"one over", []byte(long[:maxListValue+1]), long[:maxListValue] + " … (201 bytes)"},
		{"long", []byte(long), long[:maxListValue] + " … (250 bytes)"},
		{"binary long", make([]byte, 300), `"` + strings.Repeat(`\x00`, maxListValue) + `" … (300 bytes)`},
		{
			"cut at a character boundary",
			[]byte(strings.Repeat("x", maxListValue-1) + "éé"),
			strings.Repeat("x", maxListValue-1) + " … (203 bytes)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatListValue(tt.in); got != tt.want {
				t.Fatalf("formatListValue(%d bytes) = %s, want %s", len(tt.in), got, tt.want)
			}
		})
	}
}

// TestFormatFields checks the reflection-based "Name value" rendering of stats.
func TestFormatFields(t *testing.T) {
	type inner struct{ Hits, Misses int }
	type sample struct {
		Pages   int64
		Ratio   float64
		Elapsed time.Duration
		When    time.Time
		Cache   inner
		private int
		Name    string
	}
	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := sample{Pages: 7, Ratio: 0.5, Elapsed: 1500 * time.Millisecond, When: when,
		Cache: inner{1, 2}, private: 9, Name: "db"}
	want := []string{
		"Pages 7", "Ratio 0.5", "Elapsed 1.5s", "When 2025-01-02 03:04:05 +0000 UTC",
		"Cache.Hits 1", "Cache.Misses 2", "Name db",
	}
	tests := []struct {
		name string
		in   any
		want []string
	}{
		{"struct", s, want},
		{"pointer", &s, want},
		{"not a struct", 42, []string{"42"}},
		{"empty struct", struct{}{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatFields(tt.in); !slices.Equal(got, tt.want) {
				t.Fatalf("formatFields = %q, want %q", got, tt.want)
			}
		})
	}
}
