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

func (c *barChart) fileName() string   { return c.file }
func (c *barChart) runCount() runRange { return c.runs }

// plot lays the groups out at X = 0, 1, 2 ..., each 0.8 wide and shared by its bars.
func (c *barChart) plot() (*plot.Plot, plot.Legend, error) {
	p := newPlot(c.title, c.yLabel, c.unit)
	legend := newLegend()
	width := 0.8 / float64(len(c.series))
	for j, s := range c.series {
		b := &barSet{width: width, color: s.color}
		for i, v := range s.vals {
			if v.Center > 0 {
				b.xs = append(b.xs, float64(i)-0.4+(float64(j)+0.5)*width)
				b.sums = append(b.sums, v)
			}
		}
		if len(b.xs) > 0 {
			p.Add(b)
			legend.Add(s.name, b)
		}
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

func (c *lineChart) fileName() string   { return c.file }
func (c *lineChart) runCount() runRange { return c.runs }

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
// rises from 0, which a log axis cannot show) to the median sums[i].Center, with a whisker
// over the median's confidence interval where it is finite.
type barSet struct {
	xs    []float64
	sums  []benchmath.Summary
	width float64
	color color.Color
}

// Plot implements plot.Plotter.
func (b *barSet) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	whisker := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	for i, x := range b.xs {
		left, right := trX(x-b.width/2), trX(x+b.width/2)
		c.FillPolygon(b.color, c.ClipPolygonXY(rectangle(left, right, trY(p.Y.Min), trY(b.sums[i].Center))))
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
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (b *barSet) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color, rectangle(c.Min.X, c.Max.X, c.Min.Y, c.Max.Y))
}
