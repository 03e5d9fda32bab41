package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// barEvery is the minimum time between two redraws of a progress bar on a terminal.
const barEvery = 100 * time.Millisecond

// progress reports a long operation (import, export, verify, backup, compact) on a terminal: it redraws one
// line with a bar, the percentage, the count, the rate and the time left, erased at the end.
// When stderr is not a terminal it prints nothing: a script's output holds only what the
// commands print. While it runs it is the shell's bar, so that warnings (shell.warn) erase it,
// print their line and draw it again below: a warning never lands inside the bar.
type progress struct {
	sh    *shell
	verb  string // "import", "export", "verify"
	unit  string // "files", "pairs", "keys"
	total int64  // expected work (bytes, or items if byItems); 0 if unknown
	// byItems measures progress in items rather than bytes.
	byItems bool
	start   time.Time
	last    time.Time
	drawn   bool   // a bar is on the screen
	shown   string // the line drawn last
}

// newProgress starts reporting an operation with the given expected total (0: unknown).
func newProgress(sh *shell, verb, unit string, total int64, byItems bool) *progress {
	now := time.Now()
	p := &progress{sh: sh, verb: verb, unit: unit, total: total, byItems: byItems, start: now, last: now}
	sh.bar = p
	return p
}

// update reports that items and bytes are done so far.
func (p *progress) update(items, bytes int64) {
	if now, ok := p.due(); ok {
		p.draw(p.line(items, bytes, now))
	}
}

// status shows a line of text of the caller's in place of a bar (for work whose total is not
// known, like compact's passes).
func (p *progress) status(text string) {
	if _, ok := p.due(); ok {
		p.draw(p.verb + " " + text)
	}
}

// due reports whether a line should be drawn now: on a terminal, barEvery after the last one.
func (p *progress) due() (time.Time, bool) {
	if !p.sh.progress {
		return time.Time{}, false
	}
	now := time.Now()
	if now.Sub(p.last) < barEvery {
		return now, false
	}
	p.last = now
	return now, true
}

// draw replaces the progress line with line.
func (p *progress) draw(line string) {
	p.sh.out.Flush()
	fmt.Fprint(p.sh.errOut, "\r"+line+"\x1b[K")
	p.drawn, p.shown = true, line
}

// erase clears the bar from the screen (the cursor is then at the start of its line), so that
// a message can take the line; redraw draws it again.
func (p *progress) erase() {
	if p.drawn {
		fmt.Fprint(p.sh.errOut, "\r\x1b[K")
	}
}

// redraw draws the bar erased by erase again, on the cursor's line.
func (p *progress) redraw() {
	if p.drawn {
		p.draw(p.shown)
	}
}

// line renders the progress bar line.
func (p *progress) line(items, bytes int64, now time.Time) string {
	elapsed := now.Sub(p.start).Seconds()
	rate := float64(bytes) / (1 << 20) / max(elapsed, 1e-9)
	stats := fmt.Sprintf(" %d %s  %.1f MiB  %.1f MiB/s", items, p.unit, float64(bytes)/(1<<20), rate)
	done := bytes
	if p.byItems {
		done = items
	}
	if p.total <= 0 {
		return p.verb + stats
	}
	frac := min(float64(done)/float64(p.total), 1)
	eta := "--:--"
	if frac > 0 {
		eta = formatETA(time.Duration(elapsed * (1 - frac) / frac * float64(time.Second)))
	}
	width := 80
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 0 {
		width = w
	}
	tail := fmt.Sprintf(" %3.0f%%%s  ETA %s", frac*100, stats, eta)
	barWidth := min(40, width-len(p.verb)-len(tail)-4)
	if barWidth < 5 {
		return p.verb + tail
	}
	full := int(frac * float64(barWidth))
	return fmt.Sprintf("%s [%s%s]%s", p.verb, strings.Repeat("=", full), strings.Repeat(" ", barWidth-full), tail)
}

// formatETA renders a remaining time as m:ss or h:mm:ss.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// finish erases the bar, if one was drawn, before the command prints its summary; the bar is
// no longer the shell's.
func (p *progress) finish() {
	p.erase()
	p.drawn = false
	if p.sh.bar == p {
		p.sh.bar = nil
	}
}
