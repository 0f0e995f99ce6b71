package provision

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions returns the deterministic function table a profile may call.
// There is deliberately no timestamp, uuid or env: a profile renders to the
// same bytes for the same inputs. file and templatefile read only inside
// the profile directory; templatefile's templates see the table too
// (without templatefile itself, so templates cannot recurse).
func functions(pf *profileFS) map[string]function.Function {
	fns := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "base64decode": base64DecodeFunc, "base64encode": base64EncodeFunc,
		"can": tryfunc.CanFunc, "ceil": stdlib.CeilFunc, "chomp": stdlib.ChompFunc,
		"coalesce": stdlib.CoalesceFunc, "compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc,
		"contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc,
		"flatten": stdlib.FlattenFunc, "floor": stdlib.FloorFunc, "format": stdlib.FormatFunc,
		"formatlist": stdlib.FormatListFunc, "indent": stdlib.IndentFunc, "join": stdlib.JoinFunc,
		"jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc, "keys": stdlib.KeysFunc,
		"length": stdlib.LengthFunc, "lookup": stdlib.LookupFunc, "lower": stdlib.LowerFunc,
		"max": stdlib.MaxFunc, "merge": stdlib.MergeFunc, "min": stdlib.MinFunc, "range": stdlib.RangeFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "replace": stdlib.ReplaceFunc,
		"reverse": stdlib.ReverseListFunc, "setunion": stdlib.SetUnionFunc, "sha256": sha256Func,
		"shelljoin": shellJoinFunc, "shellquote": shellQuoteFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc, "split": stdlib.SplitFunc,
		"startswith": startsWithFunc, "strcontains": strContainsFunc, "substr": stdlib.SubstrFunc,
		"title": stdlib.TitleFunc, "tobool": stdlib.MakeToFunc(cty.Bool),
		"tolist":   stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":    stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber": stdlib.MakeToFunc(cty.Number), "toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring": stdlib.MakeToFunc(cty.String), "trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc,
		"trimspace": stdlib.TrimSpaceFunc, "trimsuffix": stdlib.TrimSuffixFunc, "try": tryfunc.TryFunc,
		"upper": stdlib.UpperFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
	}
	if pf != nil {
		fns["file"] = fileFunc(pf)
		inner := make(map[string]function.Function, len(fns))
		for k, v := range fns {
			inner[k] = v
		}
		fns["templatefile"] = templateFileFunc(pf, inner)
	}
	return fns
}

var sha256Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		s := sha256.Sum256([]byte(args[0].AsString()))
		return cty.StringVal(hex.EncodeToString(s[:])), nil
	},
})

// shellWord is s as one POSIX sh word: as it is when every character is
// one a shell never treats specially (letters, digits, "-_./=:@,+%"), else
// in single quotes with each ' written '\”. The same rule as host.Quote,
// which the Go side uses for the commands it builds, so a value reads the
// same in a profile's command and in wptest's own.
func shellWord(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", errors.New("a shell word cannot hold a NUL byte")
	}
	return host.Quote(s), nil
}

var shellQuoteFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		w, err := shellWord(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		return cty.StringVal(w), nil
	},
})

// shelljoin is an argv as one command line: each element one word.
var shellJoinFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "args", Type: cty.List(cty.String)}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(cty.String), nil
		}
		var words []string
		for it := args[0].ElementIterator(); it.Next(); {
			k, v := it.Element()
			if v.IsNull() {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "element %s is null", k.AsBigFloat().String())
			}
			w, err := shellWord(v.AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "element %s: %v", k.AsBigFloat().String(), err)
			}
			words = append(words, w)
		}
		return cty.StringVal(strings.Join(words, " ")), nil
	},
})

var base64EncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid base64: %v", err)
		}
		if !utf8.Valid(b) {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "decoded bytes are not UTF-8")
		}
		return cty.StringVal(string(b)), nil
	},
})

var startsWithFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "prefix", Type: cty.String}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.BoolVal(strings.HasPrefix(args[0].AsString(), args[1].AsString())), nil
	},
})

var strContainsFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.BoolVal(strings.Contains(args[0].AsString(), args[1].AsString())), nil
	},
})

// profileFS reads files of one profile directory, refusing anything outside it.
type profileFS struct {
	fsys fs.FS
	dir  string
	// dirs: the profile's directory, then each part's it uses. A relative
	// path is looked up in that order, so a profile can replace a part's
	// template by a file of the same path of its own.
	dirs []string
}

// read returns the bytes of rel (relative to the profile dir, or to a
// part's) and the name used for it in messages.
func (p *profileFS) read(rel string) ([]byte, string, error) {
	dirs := p.dirs
	if len(dirs) == 0 {
		dirs = []string{p.dir}
	}
	var first error
	for _, d := range dirs {
		b, name, err := p.readIn(d, rel)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return b, name, err
		}
		if first == nil {
			first = err
		}
	}
	return nil, "", first
}

func (p *profileFS) readIn(dir, rel string) ([]byte, string, error) {
	if rel == "" || path.IsAbs(rel) || strings.Contains(rel, "\\") {
		return nil, "", fmt.Errorf("%q: must be a path relative to the profile directory", rel)
	}
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, "", fmt.Errorf("%q: outside the profile directory", rel)
	}
	name := path.Join(dir, clean)
	// fs.FS implementations (embed, os.DirFS) refuse to follow a symlink out
	// of their root only partly; check the type explicitly.
	if fi, err := fs.Lstat(p.fsys, name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, "", fmt.Errorf("%q: symlinks are not followed", rel)
	}
	b, err := fs.ReadFile(p.fsys, name)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", rel, unwrapPathErr(err))
	}
	return b, name, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func fileFunc(pf *profileFS) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, _, err := pf.read(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			if !utf8.Valid(b) {
				return cty.UnknownVal(cty.String), fmt.Errorf("%s is not UTF-8 text (use a file op with source =)", args[0].AsString())
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

func templateFileFunc(pf *profileFS, fns map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, name, err := pf.read(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			vars := args[1]
			if !vars.Type().IsObjectType() && !vars.Type().IsMapType() {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "vars must be an object or map")
			}
			ctx := &hcl.EvalContext{Variables: map[string]cty.Value{}, Functions: fns}
			for it := vars.ElementIterator(); it.Next(); {
				k, v := it.Element()
				ctx.Variables[k.AsString()] = v
			}
			if d := hcldiag.Check(name, b, hcldiag.Template); d != nil {
				return cty.UnknownVal(cty.String), hcldiag.Line(d)
			}
			expr, diags := hclsyntax.ParseTemplate(b, name, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.UnknownVal(cty.String), hcldiag.Line(diags)
			}
			v, diags := expr.Value(ctx)
			if diags.HasErrors() {
				return cty.UnknownVal(cty.String), hcldiag.Line(diags)
			}
			return toString(v)
		},
	})
}
