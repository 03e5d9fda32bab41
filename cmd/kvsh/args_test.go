package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// words builds the expected [][]byte of one command from strings.
func words(ws ...string) [][]byte {
	out := make([][]byte, len(ws))
	for i, w := range ws {
		out[i] = []byte(w)
	}
	return out
}

// cmdsEqual compares two tokenizer results byte for byte.
func cmdsEqual(a, b [][][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !bytes.Equal(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

// showCmds renders a tokenizer result for failure messages.
func showCmds(cmds [][][]byte) string {
	var sb strings.Builder
	for _, c := range cmds {
		sb.WriteString("[")
		for j, w := range c {
			if j > 0 {
				sb.WriteString(" ")
			}
			fmt.Fprintf(&sb, "%q", w)
		}
		sb.WriteString("]")
	}
	return sb.String()
}

// TestSplitCommands checks words, quoting, escapes, hex and command separators.
func TestSplitCommands(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][][]byte
	}{
		{"empty", "", nil},
		{"blank", "  \t ", nil},
		{"one word", "stats", [][][]byte{words("stats")}},
		{"spaces and tabs", "  put\ta \t b  ", [][][]byte{words("put", "a", "b")}},
		{"semicolons", "put a 1; get a;;", [][][]byte{words("put", "a", "1"), words("get", "a")}},
		{"semicolon glued", "get a;get b", [][][]byte{words("get", "a"), words("get", "b")}},
		{"newline separates", "get a\nget b\r\n", [][][]byte{words("get", "a"), words("get", "b")}},
		{"double quotes", `put "a b" "c;d"`, [][][]byte{words("put", "a b", "c;d")}},
		{"go escapes", `put k "\n\t\"\\\x00\xff\u00e9\101"`, [][][]byte{words("put", "k", "\n\t\"\\\x00\xffé\x41")}},
		{"single quotes literal", `put 'a\nb' '"x"'`, [][][]byte{words("put", `a\nb`, `"x"`)}},
		{"empty quoted words", `put "" ''`, [][][]byte{words("put", "", "")}},
		{"adjacent parts join", `put a"b c"'d' x`, [][][]byte{words("put", "ab cd", "x")}},
		{"hex", "put 0x00ff 0x", [][][]byte{words("put", "\x00\xff", "")}},
		{"hex upper digits", "get 0xABcd", [][][]byte{words("get", "\xab\xcd")}},
		{"quoted 0x is text", `put "0x41" '0x42'`, [][][]byte{words("put", "0x41", "0x42")}},
		{"0x in the middle is text", "get a0x41", [][][]byte{words("get", "a0x41")}},
		{"raw non-UTF-8 kept", "get \xff\"\xfe\"", [][][]byte{words("get", "\xff\xfe")}},
		{"utf-8 kept", `put clé "värde"`, [][][]byte{words("put", "clé", "värde")}},
		{"comment line", "# put a 1", nil},
		{"comment then command", "# note\nget a", [][][]byte{words("get", "a")}},
		{"hash inside command is text", "get #a", [][][]byte{words("get", "#a")}},
		{"hash after semicolon", "get a; # rest; get b", [][][]byte{words("get", "a")}},
		{"backslash outside quotes is literal", `get a\b`, [][][]byte{words("get", `a\b`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitCommands(tt.in)
			if err != nil {
				t.Fatalf("splitCommands(%q): %v", tt.in, err)
			}
			if !cmdsEqual(got, tt.want) {
				t.Fatalf("splitCommands(%q) = %s, want %s", tt.in, showCmds(got), showCmds(tt.want))
			}
		})
	}
}

// TestSplitCommandsErrors checks malformed lines are rejected with a useful message.
func TestSplitCommandsErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"unterminated double", `put a "b`, "unterminated double quote at column 7"},
		{"unterminated single", `put a 'b`, "unterminated single quote at column 7"},
		{"escaped closing quote", `put a "b\"`, "unterminated double quote"},
		{"bad escape", `put a "\q"`, "bad escape at column 8"},
		{"short hex escape", `put a "\x4"`, "bad escape"},
		{"odd hex word", "get 0xabc", "bad hex word"},
		{"non-hex word", "get 0xzz", "bad hex word"},
		{"error in later command", "get a; get 0xg", "bad hex word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitCommands(tt.in)
			if err == nil {
				t.Fatalf("splitCommands(%q) = %s, want error", tt.in, showCmds(got))
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("splitCommands(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

// TestQuotedOutputReadsBack checks that every quoted rendering of formatBytes is read back by
// the tokenizer as the original bytes, so output can be pasted into commands.
func TestQuotedOutputReadsBack(t *testing.T) {
	inputs := [][]byte{
		[]byte("tab\there"), []byte("nl\n"), {0, 1, 2, 0xff, 0xfe}, []byte("quote\"and\\slash\xc3"),
		[]byte("é\x80"), []byte("\u2028sep"), []byte("\x7f"),
	}
	for b := range 256 {
		inputs = append(inputs, []byte{byte(b), 'x', byte(b)})
	}
	for _, in := range inputs {
		out := formatBytes(in)
		if !strings.HasPrefix(out, `"`) {
			if !bytes.Equal([]byte(out), in) {
				t.Errorf("formatBytes(%q) = %q: plain output differs from input", in, out)
			}
			continue
		}
		cmds, err := splitCommands("get " + out)
		if err != nil {
			t.Fatalf("splitCommands(get %s): %v", out, err)
		}
		if len(cmds) != 1 || len(cmds[0]) != 2 || !bytes.Equal(cmds[0][1], in) {
			t.Errorf("formatBytes(%q) = %s reads back as %s", in, out, showCmds(cmds))
		}
	}
}
