package main

import (
	"image/color"
	"math"
	"strconv"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func (c *barChart) fileName() string               { return c.file }
func (c *barChart) runCount() runRange             { return c.runs }
func (c *barChart) captionNotes() (string, string) { return c.explain, c.whiskers }
func (c *barChart) figureWidth() vg.Length         { return c.width }

// groupWidth is the share of its unit of X that a group of bars takes.
const groupWidth = 0.8

// plot lays the groups out at X = 0, 1, 2 ..., each groupWidth wide and shared by its bars,
// then draws the goal marks and the reference line if c has them.
func (c *barChart) plot() (*plot.Plot, plot.Legend, error) {
	p := newPlot(c.title, c.yLabel, c.unit)
	legend := newLegend()
	width := groupWidth / float64(len(c.series))
	for j, s := range c.series {
		b := &barSet{width: width, color: s.color, from: c.from}
		for i, v := range s.vals {
			if v.Center > 0 {
				b.xs = append(b.xs, float64(i)-groupWidth/2+(float64(j)+0.5)*width)
				b.sums = append(b.sums, v)
			}
		}
		if len(b.xs) > 0 {
			p.Add(b)
			legend.Add(s.name, b)
		}
	}
	if g := c.goalMarks(); g != nil {
		p.Add(g)
		legend.Add(c.goalName, g)
	}
	if c.ref > 0 {
		ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: c.ref}, {X: float64(len(c.groups)) - 0.5, Y: c.ref}})
		if err != nil {
			return nil, legend, err
		}
		ref.Color, ref.Width, ref.Dashes = color.Gray{60}, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ref)
		legend.Add(c.refName, ref)
	}
	var ticks plot.ConstantTicks
	for i, g := range c.groups {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: g})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = -0.5, float64(len(c.groups))-0.5
	fitDecades(&p.Y)
	return p, legend, nil
}

// goalMarks returns the marks of c.goals, each across the bar of c.series[0] and a little
// beyond it, or nil if c has none.
func (c *barChart) goalMarks() *goalMarks {
	width := groupWidth / float64(len(c.series))
	g := &goalMarks{width: 1.25 * width}
	for i, y := range c.goals {
		if y > 0 {
			g.xs, g.ys = append(g.xs, float64(i)-groupWidth/2+width/2), append(g.ys, y)
		}
	}
	if len(g.xs) == 0 {
		return nil
	}
	return g
}

func (c *lineChart) fileName() string               { return c.file }
func (c *lineChart) runCount() runRange             { return c.runs }
func (c *lineChart) captionNotes() (string, string) { return "", "" }

// plot draws each line with its points and their confidence intervals.
func (c *lineChart) plot() (*plot.Plot, plot.Legend, error) {
	p := newPlot(c.title, c.yLabel, c.unit)
	p.X.Label.Text = c.xLabel
	p.X.Scale = plot.LogScale{}
	legend := newLegend()
	for _, l := range c.lines {
		line, points, bars, err := linePlotters(l)
		if err != nil {
			return nil, legend, err
		}
		p.Add(line, points)
		if bars != nil {
			p.Add(bars)
		}
		legend.Add(l.name, line, points)
	}
	var ticks plot.ConstantTicks
	for _, x := range c.xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = c.xs[0]/1.5, c.xs[len(c.xs)-1]*1.5
	fitDecades(&p.Y)
	return p, legend, nil
}

// linePlotters returns the line and the points of l, and error bars where the points have
// a confidence interval (nil if none has).
func linePlotters(l lineSeries) (*plotter.Line, *plotter.Scatter, *plotter.YErrorBars, error) {
	xys := make(plotter.XYs, len(l.xs))
	var errs struct {
		plotter.XYs
		plotter.YErrors
	}
	for i, x := range l.xs {
		s := l.vals[i]
		xys[i] = plotter.XY{X: x, Y: s.Center}
		if hasInterval(s) {
			errs.XYs = append(errs.XYs, xys[i])
			errs.YErrors = append(errs.YErrors, struct{ Low, High float64 }{s.Center - s.Lo, s.Hi - s.Center})
		}
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, nil, err
	}
	col := engineColor(l.index)
	line.Color, line.Width = col, vg.Points(1.5)
	points.Color, points.Shape, points.Radius = col, plotutil.Shape(l.index), vg.Points(3)
	if len(errs.XYs) == 0 {
		return line, points, nil, nil
	}
	bars, err := plotter.NewYErrorBars(errs)
	if err != nil {
		return nil, nil, nil, err
	}
	bars.Color = col
	return line, points, bars, nil
}

// A barSet draws one series of a grouped bar chart on an axis of any scale: bar i spans
// xs[i] ± width/2 in data units and rises from the bottom of the Y axis (gonum's BarChart
// rises from 0, which a log axis cannot show), or from Y = from if from > 0, to the median
// sums[i].Center, with a whisker over the median's confidence interval where it is finite.
type barSet struct {
	xs    []float64
	sums  []benchmath.Summary
	width float64
	color color.Color
	from  float64
}

// Plot implements plot.Plotter.
func (b *barSet) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	whisker := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	bottom := trY(p.Y.Min)
	if b.from > 0 {
		bottom = trY(b.from)
	}
	for i, x := range b.xs {
		left, right := trX(x-b.width/2), trX(x+b.width/2)
		c.FillPolygon(b.color, c.ClipPolygonXY(rectangle(left, right, bottom, trY(b.sums[i].Center))))
		if !hasInterval(b.sums[i]) {
			continue
		}
		mid, end := trX(x), (right-left)/4
		lo, hi := trY(b.sums[i].Lo), trY(b.sums[i].Hi)
		c.StrokeLines(whisker, c.ClipLinesXY(
			[]vg.Point{{X: mid, Y: lo}, {X: mid, Y: hi}},
			[]vg.Point{{X: mid - end, Y: lo}, {X: mid + end, Y: lo}},
			[]vg.Point{{X: mid - end, Y: hi}, {X: mid + end, Y: hi}},
		)...)
	}
}

// DataRange implements plot.DataRanger: the bars and the finite whisker ends.
func (b *barSet) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range b.xs {
		s := b.sums[i]
		xmin, xmax = math.Min(xmin, x-b.width/2), math.Max(xmax, x+b.width/2)
		ymin, ymax = math.Min(ymin, s.Center), math.Max(ymax, s.Center)
		if hasInterval(s) {
			ymin, ymax = math.Min(ymin, s.Lo), math.Max(ymax, s.Hi)
		}
	}
	if b.from > 0 {
		ymin, ymax = math.Min(ymin, b.from), math.Max(ymax, b.from)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (b *barSet) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color, rectangle(c.Min.X, c.Max.X, c.Min.Y, c.Max.Y))
}

// goalMarks draws a short thick line centred on xs[i], width wide in data units, at Y = ys[i]:
// the bound a goal sets.
type goalMarks struct {
	xs, ys []float64
	width  float64
}

// goalStyle is the line of a goal mark.
var goalStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}

// Plot implements plot.Plotter.
func (g *goalMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, x := range g.xs {
		y := trY(g.ys[i])
		c.StrokeLines(goalStyle, c.ClipLinesXY([]vg.Point{{X: trX(x - g.width/2), Y: y}, {X: trX(x + g.width/2), Y: y}})...)
	}
}

// DataRange implements plot.DataRanger.
func (g *goalMarks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range g.xs {
		xmin, xmax = math.Min(xmin, x-g.width/2), math.Max(xmax, x+g.width/2)
		ymin, ymax = math.Min(ymin, g.ys[i]), math.Max(ymax, g.ys[i])
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (g *goalMarks) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(goalStyle, c.Min.X, y, c.Max.X, y)
}
