package value

import (
	"math"
	"testing"
)

// TestQuoteInfinity: quote() writes an infinite REAL as a literal that reads back as one,
// 9.0e+999 (SQLite 3.54.1), while CAST(x AS TEXT) writes Inf.
func TestQuoteInfinity(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{Float(math.Inf(1)), "9.0e+999"},
		{Float(math.Inf(-1)), "-9.0e+999"},
		{Float(1.5), "1.5"},
	} {
		if got := string(AppendQuoted(nil, c.v)); got != c.want {
			t.Errorf("quote(%v) = %s, SQLite %s", c.v, got, c.want)
		}
	}
	if got := string(Float(math.Inf(1)).AppendText(nil)); got != "Inf" {
		t.Errorf("CAST(Inf AS TEXT) = %s, SQLite Inf", got)
	}
}
