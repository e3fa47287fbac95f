// Package complexity is the analyze-complexity sample tool (the seed's
// §9.3 Rust example made real) as a native Go provider,
// org.aios.samples.complexity. It reads a source object from Space storage
// and reports its cyclomatic complexity.
//
// Go sources are measured exactly with go/parser and go/ast. Rust, Python
// and TypeScript sources get a token-based approximation (see Approximate).
//
// It imports abi and runtimes/native only; it must never import host.
package complexity

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// ToolName is the tool this provider offers.
const ToolName = "analyze-complexity"

// New returns the provider with the analyze-complexity tool. It asks for
// ReadSpace(source) and the tool requires the same of its callers.
func New() *native.Provider {
	p := native.New(abi.ProviderInfo{
		ID:           "org.aios.samples.complexity",
		Name:         "Code Analyzer",
		Version:      "1.0.0",
		Description:  "Cyclomatic complexity of source files held in Space storage",
		Capabilities: []string{"ReadSpace(source)"},
	})
	p.MustRegister(abi.ToolDef{
		Name:        ToolName,
		Version:     "1.0.0",
		Description: "Calculate the cyclomatic complexity of a source file held in Space storage (complexity = the most complex function's; total and per-function figures included)",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"object_id": map[string]any{"type": "string", "description": "ObjectId of the source file"},
				"language":  map[string]any{"type": "string", "enum": []any{"go", "rust", "python", "typescript"}, "description": "Source language (default go)"},
			},
			"required": []any{"object_id"},
		},
		Returns: map[string]any{
			"type":     "object",
			"required": []any{"complexity", "rating", "functions"},
			"properties": map[string]any{
				"complexity": map[string]any{"type": "integer", "minimum": 1},
				"total":      map[string]any{"type": "integer"},
				"rating":     map[string]any{"type": "string", "enum": []any{"low", "moderate", "high", "very high"}},
				"method":     map[string]any{"type": "string"},
				"functions": map[string]any{"type": "array", "items": map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "complexity": map[string]any{"type": "integer"}},
				}},
			},
		},
		CapabilityRequired: []string{"ReadSpace(source)"},
		Tags:               []string{"code", "analysis", "complexity"},
		Examples:           []string{`{"object_id": "sha256:…", "language": "go"}`},
		Idempotent:         true,
		LatencyClass:       abi.LatencyFast,
		PermissionLevel:    abi.PermissionLow,
		MCPExportable:      true,
	}, native.Typed(analyze))
	return p
}

// Params are the tool's parameters.
type Params struct {
	ObjectID string `json:"object_id"`
	Language string `json:"language"`
}

// Function is one function's complexity.
type Function struct {
	Name       string `json:"name"`
	Complexity int    `json:"complexity"`
}

// Report is the tool's result. Complexity is the highest complexity of any
// function (the figure code review thresholds are meant for); Total sums
// them. A file without functions has complexity 1.
type Report struct {
	Complexity int        `json:"complexity"`
	Total      int        `json:"total"`
	Rating     string     `json:"rating"`
	Method     string     `json:"method"`
	Functions  []Function `json:"functions"`
}

func analyze(ctx context.Context, p Params, env abi.Env) (map[string]any, error) {
	if p.Language == "" {
		p.Language = "go"
	}
	obj, err := env.SpaceRead(ctx, "", p.ObjectID)
	if err != nil {
		return nil, err
	}
	var rep Report
	switch p.Language {
	case "go":
		fns, err := goFunctions(ctx, obj.Data)
		if ctx.Err() != nil {
			return nil, ctx.Err() // Timeout or Cancelled, naming the tool
		}
		if err != nil {
			return nil, &abi.ToolError{Code: abi.ProviderError, Message: "object " + p.ObjectID + " is not valid Go: " + err.Error()}
		}
		rep = Summarize(fns, "go/ast: 1 + if, for, range, case, select case, &&, || per function")
	case "rust", "python", "typescript":
		c, err := approximate(ctx, obj.Data, p.Language)
		if err != nil {
			return nil, err
		}
		rep = Summarize([]Function{{Name: "(file)", Complexity: c}},
			"token approximation: 1 + decision keywords and operators over the whole file")
	default:
		return nil, &abi.ToolError{Code: abi.InvalidParams, Message: "language " + p.Language + " is not one of go, rust, python, typescript"}
	}
	funcs := make([]any, len(rep.Functions))
	for i, f := range rep.Functions {
		funcs[i] = map[string]any{"name": f.Name, "complexity": int64(f.Complexity)}
	}
	return map[string]any{
		"complexity": int64(rep.Complexity), "total": int64(rep.Total), "rating": rep.Rating,
		"method": rep.Method, "functions": funcs,
	}, nil
}

// Summarize builds a report from per-function figures.
func Summarize(fns []Function, method string) Report {
	rep := Report{Complexity: 1, Method: method, Functions: fns}
	if rep.Functions == nil {
		rep.Functions = []Function{}
	}
	for _, f := range fns {
		rep.Total += f.Complexity
		rep.Complexity = max(rep.Complexity, f.Complexity)
	}
	rep.Rating = Rate(rep.Complexity)
	return rep
}

// Rate maps a complexity to the usual bands: 1–10 low, 11–20 moderate,
// 21–50 high, above 50 very high.
func Rate(c int) string {
	switch {
	case c <= 10:
		return "low"
	case c <= 20:
		return "moderate"
	case c <= 50:
		return "high"
	}
	return "very high"
}

// GoFunctions parses a Go source file and returns the cyclomatic complexity
// of every function and method in source order. Function literals count
// toward the function that contains them.
func GoFunctions(src []byte) ([]Function, error) {
	return goFunctions(context.Background(), src)
}

// goFunctions is GoFunctions stopping with ctx's error once ctx is done
// (go/parser itself runs to its end).
func goFunctions(ctx context.Context, src []byte) ([]Function, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "source.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pl := poller{ctx: ctx}
	var out []Function
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		out = append(out, Function{Name: funcName(fd), Complexity: goComplexity(fd, &pl)})
		if pl.err != nil {
			return nil, pl.err
		}
	}
	return out, nil
}

// poller checks ctx every so many steps of a long loop: err is its
// error once it is done.
type poller struct {
	ctx context.Context
	n   int
	err error
}

// done reports whether the loop must stop.
func (p *poller) done() bool {
	if p.err != nil {
		return true
	}
	if p.n++; p.n&(1<<14-1) == 0 {
		p.err = p.ctx.Err()
	}
	return p.err != nil
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + recvType(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	}
	return "?"
}

func goComplexity(fd *ast.FuncDecl, pl *poller) int {
	c := 1
	if fd.Body == nil {
		return c
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if pl.done() {
			return false
		}
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil { // default is not a decision
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// decision tokens per language for Approximate.
var decisionWords = map[string][]string{
	"rust":       {"if", "for", "while", "loop", "&&", "||", "?"},
	"python":     {"if", "elif", "for", "while", "except", "case", "and", "or"},
	"typescript": {"if", "for", "while", "case", "catch", "&&", "||", "??"},
}

// Approximate estimates cyclomatic complexity of a whole file in a language
// without a Go parser: 1 + the number of decision points, after comments
// and string literals are removed. Decision points are the keywords if,
// elif, for, while, case, catch, except (and, or in Python; loop and match
// arms "=>" in Rust) and the operators && || (?? and the ternary ?: in
// TypeScript; the ? operator in Rust, an early return). "else if" counts
// once (as its if). This overcounts identifiers only when they are
// keywords, and undercounts macros; it is an estimate, labelled as such in
// the report's method.
func Approximate(src []byte, language string) int {
	c, _ := approximate(context.Background(), src, language)
	return c
}

// approximate is Approximate stopping with ctx's error once ctx is done.
func approximate(ctx context.Context, src []byte, language string) (int, error) {
	pl := poller{ctx: ctx}
	toks := tokenize(stripCommentsAndStrings(string(src), language, &pl), &pl)
	if pl.err != nil {
		return 0, pl.err
	}
	want := map[string]bool{}
	for _, w := range decisionWords[language] {
		want[w] = true
	}
	c := 1
	for i, t := range toks {
		if pl.done() {
			return 0, pl.err
		}
		switch {
		case t == "=>" && language == "rust":
			c++ // one per match arm
		case t == "?" && language == "typescript":
			// ternary: '?' not part of '?.' or '??' (tokenize keeps those whole)
			if i+1 < len(toks) && toks[i+1] != ")" && toks[i+1] != ":" {
				c++
			}
		case want[t]:
			c++
		}
	}
	return c, nil
}

// tokenize splits source into identifiers/keywords and operator tokens.
func tokenize(s string, pl *poller) []string {
	var toks []string
	isWord := func(b byte) bool {
		return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	for i := 0; i < len(s) && !pl.done(); {
		b := s[i]
		switch {
		case isWord(b):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			i++
		default:
			op := s[i : i+1]
			for _, two := range []string{"&&", "||", "??", "?.", "=>"} {
				if strings.HasPrefix(s[i:], two) {
					op = two
					break
				}
			}
			toks = append(toks, op)
			i += len(op)
		}
	}
	return toks
}

// stripCommentsAndStrings blanks comments and string literals.
func stripCommentsAndStrings(s, language string, pl *poller) string {
	var sb strings.Builder
	lineComment := "//"
	if language == "python" {
		lineComment = "#"
	}
	for i := 0; i < len(s) && !pl.done(); {
		switch {
		case strings.HasPrefix(s[i:], lineComment):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case language != "python" && strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
			sb.WriteByte(' ')
		case language == "python" && (strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''")):
			q := s[i : i+3]
			end := strings.Index(s[i+3:], q)
			if end < 0 {
				i = len(s)
			} else {
				i += end + 6
			}
			sb.WriteString(` "" `)
		case language == "rust" && (i == 0 || !isIdentByte(s[i-1])) && rawStringLen(s[i:]) > 0:
			i += rawStringLen(s[i:])
			sb.WriteString(` "" `)
		case language == "rust" && s[i] == '\'':
			// A char literal ('"', '\'', '\u{22}') or a lifetime ('a).
			if n := charLiteralLen(s[i:]); n > 0 {
				i += n
				sb.WriteString(` "" `)
			} else {
				sb.WriteByte(s[i])
				i++
			}
		case language == "typescript" && s[i] == '/' && regexMayStart(sb.String()):
			if n := regexLiteralLen(s[i:]); n > 0 {
				i += n
				sb.WriteString(` "" `)
			} else {
				sb.WriteByte(s[i])
				i++
			}
		case s[i] == '"' || s[i] == '`' || (s[i] == '\'' && language != "rust"):
			q := s[i]
			i++
			for i < len(s) && s[i] != q {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
			sb.WriteString(` "" `)
		default:
			sb.WriteByte(s[i])
			i++
		}
	}
	return sb.String()
}

// SortByComplexity orders functions from the most complex down (a helper
// for callers printing reports).
func SortByComplexity(fns []Function) {
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].Complexity > fns[j].Complexity })
}

// rawStringLen is the length of the Rust raw string literal (r"…",
// r#"…"#, br"…") at the start of s, 0 when there is none: its text, double
// quotes included, is no code.
func rawStringLen(s string) int {
	j := 0
	if strings.HasPrefix(s, "br") {
		j = 2
	} else if strings.HasPrefix(s, "r") {
		j = 1
	} else {
		return 0
	}
	hashes := 0
	for j < len(s) && s[j] == '#' {
		hashes++
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return 0
	}
	end := strings.Index(s[j+1:], "\""+strings.Repeat("#", hashes))
	if end < 0 {
		return len(s)
	}
	return j + 1 + end + 1 + hashes
}

// charLiteralLen is the length of the Rust char literal at the start of
// s ('x', '"', an escape such as '\n' or '\u{22}'), 0 when the quote starts a lifetime ('a).
func charLiteralLen(s string) int {
	if len(s) < 3 {
		return 0
	}
	if s[1] == '\\' {
		if end := strings.IndexByte(s[3:], '\''); end >= 0 && end <= 8 {
			return 3 + end + 1
		}
		return 0
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	if 1+size < len(s) && s[1+size] == '\'' {
		return 1 + size + 1
	}
	return 0
}

// isIdentByte reports whether b may be part of an identifier: an r there
// ends a word (a "bar" of code), it starts no raw string.
func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// regexMayStart reports whether a '/' after the code out (comments and
// strings already blanked) starts a JavaScript regular expression literal,
// not a division: an expression may start there (after ( , = : [ ! & | ?
// { } ; + - * % < > ~ ^, return or typeof, or at the start).
func regexMayStart(out string) bool {
	out = strings.TrimRight(out, " \t\r\n")
	if out == "" {
		return true
	}
	if strings.ContainsRune("(,=:[!&|?{};+-*%<>~^", rune(out[len(out)-1])) {
		return true
	}
	for _, kw := range []string{"return", "typeof"} {
		if strings.HasSuffix(out, kw) && (len(out) == len(kw) || !isIdentByte(out[len(out)-len(kw)-1])) {
			return true
		}
	}
	return false
}

// regexLiteralLen is the length of the regular expression literal (its
// flags included) at the start of s, which starts with '/'; 0 when none
// ends on its line.
func regexLiteralLen(s string) int {
	class := false
	for j := 1; j < len(s) && s[j] != '\n'; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if class {
				continue
			}
			j++
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			return j
		}
	}
	return 0
}
