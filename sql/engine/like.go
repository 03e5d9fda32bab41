package engine

import "unicode/utf8"

// likeMatch reports whether s matches the LIKE pattern p: % is any sequence of characters, _
// one character, esc (if not -1) makes the next character literal; ASCII letters match without
// regard to case, as SQLite's built-in LIKE does.
func likeMatch(p, s string, esc rune) bool {
	for len(p) > 0 {
		c, n := utf8.DecodeRuneInString(p)
		p = p[n:]
		switch {
		case c == esc:
			if len(p) == 0 {
				return false
			}
			c, n = utf8.DecodeRuneInString(p)
			p = p[n:]
			if len(s) == 0 {
				return false
			}
			d, m := utf8.DecodeRuneInString(s)
			if foldASCII(c) != foldASCII(d) {
				return false
			}
			s = s[m:]
		case c == '%':
			for len(p) > 0 && (p[0] == '%' || p[0] == '_') { // %_ and %% collapse
				if p[0] == '_' {
					if len(s) == 0 {
						return false
					}
					_, m := utf8.DecodeRuneInString(s)
					s = s[m:]
				}
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			for i := 0; i <= len(s); {
				if likeMatch(p, s[i:], esc) {
					return true
				}
				if i == len(s) {
					break
				}
				_, m := utf8.DecodeRuneInString(s[i:])
				i += m
			}
			return false
		case c == '_':
			if len(s) == 0 {
				return false
			}
			_, m := utf8.DecodeRuneInString(s)
			s = s[m:]
		default:
			if len(s) == 0 {
				return false
			}
			d, m := utf8.DecodeRuneInString(s)
			if foldASCII(c) != foldASCII(d) {
				return false
			}
			s = s[m:]
		}
	}
	return len(s) == 0
}

func foldASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// globMatch reports whether s matches the GLOB pattern p: * any sequence, ? one character,
// [...] a character class (with ranges, and ^ to negate); case matters.
func globMatch(p, s []byte) bool {
	for len(p) > 0 {
		c, n := utf8.DecodeRune(p)
		switch c {
		case '*':
			p = p[n:]
			for len(p) > 0 && (p[0] == '*' || p[0] == '?') {
				if p[0] == '?' {
					if len(s) == 0 {
						return false
					}
					_, m := utf8.DecodeRune(s)
					s = s[m:]
				}
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			for i := 0; i <= len(s); {
				if globMatch(p, s[i:]) {
					return true
				}
				if i == len(s) {
					break
				}
				_, m := utf8.DecodeRune(s[i:])
				i += m
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			_, m := utf8.DecodeRune(s)
			s, p = s[m:], p[n:]
		case '[':
			if len(s) == 0 {
				return false
			}
			d, m := utf8.DecodeRune(s)
			rest, ok := matchClass(p[n:], d)
			if !ok {
				return false
			}
			s, p = s[m:], rest
		default:
			if len(s) == 0 {
				return false
			}
			d, m := utf8.DecodeRune(s)
			if c != d {
				return false
			}
			s, p = s[m:], p[n:]
		}
	}
	return len(s) == 0
}

// matchClass matches d against the class whose text (after '[') starts p; it returns the pattern
// after the class and whether d is in it (false also for a class without its ']').
func matchClass(p []byte, d rune) ([]byte, bool) {
	invert := false
	if len(p) > 0 && p[0] == '^' {
		invert, p = true, p[1:]
	}
	seen := false
	first := true
	var prev rune = -1
	for len(p) > 0 {
		c, n := utf8.DecodeRune(p)
		if c == ']' && !first {
			return p[n:], seen != invert
		}
		first = false
		if c == '-' && prev >= 0 && len(p) > n && p[n] != ']' {
			hi, m := utf8.DecodeRune(p[n:])
			if d >= prev && d <= hi {
				seen = true
			}
			p = p[n+m:]
			prev = -1
			continue
		}
		if c == d {
			seen = true
		}
		prev = c
		p = p[n:]
	}
	return nil, false
}
