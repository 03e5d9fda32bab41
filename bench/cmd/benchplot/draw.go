package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure is a chart ready to be drawn.
type figure interface {
	fileName() string // without extension
	plot() (*plot.Plot, plot.Legend, error)
	runCount() runRange
	// captionNotes returns what the caption says the marks are ("" for a median each) and how
	// their whiskers are made ("" for benchstat's confidence interval of the median).
	captionNotes() (explain, whiskers string)
}

const (
	figWidth  = 8 * vg.Inch
	figHeight = 4.5 * vg.Inch
	// legendWidth is kept free on the right of the plot for the legend.
	legendWidth = 1.3 * vg.Inch
)

// engineColors are the Okabe-Ito colours (distinguishable with the common colour-vision
// deficiencies), one per engine in order of first appearance.
var engineColors = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{240, 228, 66, 255},  // yellow
	color.RGBA{0, 0, 0, 255},       // black
}

// engineColor returns the colour of the engine at index i of store.engines.
func engineColor(i int) color.Color { return engineColors[i%len(engineColors)] }

// percentileColors go from light (p50) to dark (p99.9).
var percentileColors = []color.Color{
	color.RGBA{158, 202, 225, 255},
	color.RGBA{66, 146, 198, 255},
	color.RGBA{8, 81, 156, 255},
	color.RGBA{8, 48, 107, 255},
}

// useSansFont makes plots created after it use Liberation Sans (embedded in gonum).
func useSansFont() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// render draws f with a caption naming its source and writes it to path in format
// ("svg" or "png").
func render(f figure, source, path, format string) error {
	p, legend, err := f.plot()
	if err != nil {
		return err
	}
	width := vg.Length(figWidth)
	if w, ok := f.(interface{ figureWidth() vg.Length }); ok && w.figureWidth() > 0 {
		width = w.figureWidth()
	}
	c, err := draw.NewFormattedCanvas(width, figHeight, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	dc.FillPolygon(color.White, rectangle(dc.Min.X, dc.Max.X, dc.Min.Y, dc.Max.Y))
	explain, whiskers := f.captionNotes()
	body := draw.Crop(dc, 0, 0, drawCaption(dc, caption(source, f.runCount(), explain, whiskers)), 0)
	legend.Draw(draw.Crop(body, body.Size().X-legendWidth+vg.Points(8), 0, 0, -vg.Inch/2))
	body = draw.Crop(body, drawYLabel(body, p), -legendWidth, 0, 0)
	p.Draw(body)
	return writeFile(c, path)
}

// writeFile writes the drawing on c to a new file at path.
func writeFile(c vg.CanvasWriterTo, path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// caption says where the numbers come from and how they were aggregated: explain, if not
// empty, says what the marks are, and whiskers, if not empty, replaces the account of
// benchstat's interval.
func caption(source string, runs runRange, explain, whiskers string) string {
	n := strconv.Itoa(runs.max)
	if runs.min != runs.max {
		n = fmt.Sprintf("%d to %d", runs.min, runs.max)
	}
	if whiskers == "" {
		whiskers = "whiskers: benchstat's 95% confidence interval of the median"
	}
	if runs.min < 6 {
		whiskers = "no whiskers where there are fewer than 6 runs (too few for a 95% interval)"
	}
	if explain != "" {
		whiskers = explain + "; " + whiskers
	}
	return fmt.Sprintf("source: %s\nmedian of %s runs; %s", source, n, whiskers)
}

// drawCaption writes caption at the bottom left of c in small grey type and returns the
// height it takes.
func drawCaption(c draw.Canvas, caption string) vg.Length {
	sty := text.Style{
		Color:   color.Gray{90},
		Font:    font.From(plot.DefaultFont, 8),
		Handler: plot.DefaultTextHandler,
	}
	pad := vg.Points(6)
	c.FillText(sty, vg.Point{X: c.Min.X + pad, Y: c.Min.Y + pad}, caption)
	return sty.Height(caption) + 2*pad
}

// drawYLabel draws p's Y axis label at the left of c, centred, removes it from p and returns
// the width it takes. gonum (v0.17) places the label itself, but sizes the plot as if the
// label were centred on the axis's arithmetic mid-value, which on a log axis lies near the
// top, and so leaves a gap above the data.
func drawYLabel(c draw.Canvas, p *plot.Plot) vg.Length {
	label := p.Y.Label
	p.Y.Label.Text = ""
	if label.Text == "" {
		return 0
	}
	sty := label.TextStyle
	sty.Rotation += math.Pi / 2
	h := label.TextStyle.Height(label.Text)
	descent := label.TextStyle.FontExtents().Descent
	c.FillText(sty, vg.Point{X: c.Min.X + h - descent, Y: c.Center().Y}, label.Text)
	return h + label.Padding
}

// newPlot returns a plot with title, a logarithmic Y axis labelled in unit and horizontal
// grid lines.
func newPlot(title, yLabel, unit string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.Y.Label.Text = yLabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{unit}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{220}
	p.Add(grid)
	return p
}

// newLegend returns a legend for the strip right of the plot.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.Padding = vg.Points(3)
	return l
}

// fitDecades widens a logarithmic axis to whole powers of ten, with a decade more below
// when the smallest value is near the bottom (so that its bar still shows).
func fitDecades(a *plot.Axis) {
	lo, hi := math.Floor(math.Log10(a.Min)), math.Ceil(math.Log10(a.Max))
	if a.Min < 3*math.Pow10(int(lo)) {
		lo--
	}
	if hi == lo {
		hi++
	}
	a.Min, a.Max = math.Pow10(int(lo)), math.Pow10(int(hi))
}

// logTicks marks a logarithmic axis at 1 to 9 times every power of ten, and labels the powers
// of ten (and 2 and 5 times them on an axis of at most two decades) in SI notation.
type logTicks struct{ unit string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	few := max/min <= 100.001
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow10(e)
			if v < min*0.999999 || v > max*1.000001 {
				continue
			}
			tick := plot.Tick{Value: v}
			if m == 1 || few && (m == 2 || m == 5) {
				tick.Label = siLabel(v, t.unit)
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks
}

// siLabel writes v with an SI prefix, and with "s" after it when unit measures time
// (benchfmt's tidy time units end in "sec"): 0.0002 -> "200µs", 30000 -> "30k".
func siLabel(v float64, unit string) string {
	prefixes := []string{"n", "µ", "m", "", "k", "M", "G", "T"}
	i := int(math.Floor(math.Log10(v)/3)) + 3
	i = min(max(i, 0), len(prefixes)-1)
	if unit == ratioUnit {
		return strconv.FormatFloat(v, 'g', 3, 64) + "×"
	}
	s := strconv.FormatFloat(v/math.Pow10(3*(i-3)), 'g', 3, 64) + prefixes[i]
	if strings.HasPrefix(unit, "sec") || strings.HasSuffix(unit, "-sec") {
		s += "s"
	}
	return s
}

func rectangle(left, right, bottom, top vg.Length) []vg.Point {
	return []vg.Point{{X: left, Y: bottom}, {X: left, Y: top}, {X: right, Y: top}, {X: right, Y: bottom}}
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// hasInterval reports whether s has a finite confidence interval that a log axis can show.
func hasInterval(s benchmath.Summary) bool {
	return finite(s.Lo) && finite(s.Hi) && s.Lo > 0
}
