package ast

// Window functions (lang_windowfunc.html): the OVER clause of a call, the frame, and the named
// windows of a WINDOW clause. A Window that names another (Base) is merged with it by the engine,
// which knows the WINDOW clause of the query.

// FrameUnit is ROWS, RANGE or GROUPS.
type FrameUnit uint8

// Frame units.
const (
	FrameRange FrameUnit = iota
	FrameRows
	FrameGroups
)

// BoundKind is the kind of one end of a frame.
type BoundKind uint8

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a frame; Expr is the offset of Preceding and Following.
type FrameBound struct {
	Kind BoundKind
	Expr Expr
}

// FrameExclude is a frame's EXCLUDE clause.
type FrameExclude uint8

// Frame exclusions. ExcludeNone (no EXCLUDE clause) and ExcludeNoOthers exclude nothing, but
// SQLite computes a frame written with EXCLUDE NO OTHERS afresh for each row, which decides the
// storage class of a sum and which of equal values min and max return.
const (
	ExcludeNone FrameExclude = iota
	ExcludeNoOthers
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// Frame is a window's frame specification. A frame written with one bound ends at CURRENT ROW.
type Frame struct {
	Unit       FrameUnit
	Start, End FrameBound
	Exclude    FrameExclude
}

// Window is the window of an OVER clause or of a WINDOW clause entry. NameOnly is set for
// OVER name (Base names the window, nothing else is set); otherwise Base, if set, names the
// window this one builds on. PartitionText and OrderText hold the key expressions as written
// (ORDER BY terms without their direction), which tell identical windows apart.
type Window struct {
	At            Pos
	Base          string
	NameOnly      bool
	Partition     []Expr
	PartitionText []string
	OrderBy       []OrderTerm
	OrderText     []string
	Frame         *Frame // nil: the default frame
}

// NamedWindow is one entry of a WINDOW clause: name AS (window).
type NamedWindow struct {
	Name   string
	Window *Window
}
