package golang

import (
	"html"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The wrapped standard library functions, by package.
func init() {
	register("html", []goFunc{
		{"EscapeString", html.EscapeString, true},
		{"UnescapeString", html.UnescapeString, true},
	})
	register("math", mathFuncs())
	register("rand", []goFunc{
		{"ExpFloat64", rand.ExpFloat64, false},
		{"Float64", rand.Float64, false},
		{"Int", rand.Int, false},
		{"Int63", rand.Int63, false},
		{"Int63n", rand.Int63n, false},
		{"Intn", rand.Intn, false},
		{"NormFloat64", rand.NormFloat64, false},
	})
	register("os", []goFunc{
		{"Executable", os.Executable, false},
		{"ExpandEnv", os.ExpandEnv, false},
		{"Getegid", os.Getegid, false},
		{"Getenv", os.Getenv, false},
		{"Geteuid", os.Geteuid, false},
		{"Getgid", os.Getgid, false},
		{"Getpagesize", os.Getpagesize, false},
		{"Getpid", os.Getpid, false},
		{"Getppid", os.Getppid, false},
		{"Getuid", os.Getuid, false},
		{"Getwd", os.Getwd, false},
		{"Hostname", os.Hostname, false},
		{"Readlink", os.Readlink, false},
		{"TempDir", os.TempDir, false},
		{"UserCacheDir", os.UserCacheDir, false},
		{"UserConfigDir", os.UserConfigDir, false},
		{"UserHomeDir", os.UserHomeDir, false},
	})
	register("exec", []goFunc{
		{"LookPath", exec.LookPath, false},
	})
	register("path", []goFunc{
		{"Base", path.Base, true},
		{"Clean", path.Clean, true},
		{"Dir", path.Dir, true},
		{"Ext", path.Ext, true},
		{"IsAbs", path.IsAbs, true},
		{"Join", path.Join, true},
		{"Match", path.Match, true},
	})
	register("filepath", []goFunc{
		{"Abs", filepath.Abs, false},
		{"Base", filepath.Base, true},
		{"Clean", filepath.Clean, true},
		{"Dir", filepath.Dir, true},
		{"EvalSymlinks", filepath.EvalSymlinks, false},
		{"Ext", filepath.Ext, true},
		{"FromSlash", filepath.FromSlash, true},
		{"IsAbs", filepath.IsAbs, true},
		{"IsLocal", filepath.IsLocal, true},
		{"Join", filepath.Join, true},
		{"Match", filepath.Match, true},
		{"Rel", filepath.Rel, true},
		{"ToSlash", filepath.ToSlash, true},
		{"VolumeName", filepath.VolumeName, true},
	})
	register("runtime", []goFunc{
		{"GOROOT", runtime.GOROOT, false},
		{"NumCPU", runtime.NumCPU, false},
		{"NumGoroutine", runtime.NumGoroutine, false},
		{"Version", runtime.Version, true},
	})
	register("strconv", []goFunc{
		{"Atoi", strconv.Atoi, true},
		{"CanBackquote", strconv.CanBackquote, true},
		{"FormatBool", strconv.FormatBool, true},
		{"FormatInt", strconv.FormatInt, true},
		{"Itoa", strconv.Itoa, true},
		{"ParseBool", strconv.ParseBool, true},
		{"ParseFloat", strconv.ParseFloat, true},
		{"ParseInt", strconv.ParseInt, true},
		{"Quote", strconv.Quote, true},
		{"QuoteToASCII", strconv.QuoteToASCII, true},
		{"QuoteToGraphic", strconv.QuoteToGraphic, true},
		{"Unquote", strconv.Unquote, true},
	})
	register("strings", stringsFuncs())
}

func stringsFuncs() []goFunc {
	return []goFunc{
		{"Compare", strings.Compare, true},
		{"Contains", strings.Contains, true},
		{"ContainsAny", strings.ContainsAny, true},
		{"Count", strings.Count, true},
		{"EqualFold", strings.EqualFold, true},
		{"Fields", strings.Fields, true},
		{"HasPrefix", strings.HasPrefix, true},
		{"HasSuffix", strings.HasSuffix, true},
		{"Index", strings.Index, true},
		{"IndexAny", strings.IndexAny, true},
		{"Join", strings.Join, true},
		{"LastIndex", strings.LastIndex, true},
		{"LastIndexAny", strings.LastIndexAny, true},
		{"Repeat", repeat, true},
		{"Replace", strings.Replace, true},
		{"ReplaceAll", strings.ReplaceAll, true},
		{"Split", strings.Split, true},
		{"SplitAfter", strings.SplitAfter, true},
		{"SplitAfterN", strings.SplitAfterN, true},
		{"SplitN", strings.SplitN, true},
		{"ToLower", strings.ToLower, true},
		{"ToTitle", strings.ToTitle, true},
		{"ToUpper", strings.ToUpper, true},
		{"ToValidUTF8", strings.ToValidUTF8, true},
		{"Trim", strings.Trim, true},
		{"TrimLeft", strings.TrimLeft, true},
		{"TrimPrefix", strings.TrimPrefix, true},
		{"TrimRight", strings.TrimRight, true},
		{"TrimSpace", strings.TrimSpace, true},
		{"TrimSuffix", strings.TrimSuffix, true},
	}
}

// repeat is strings.Repeat with an error instead of a panic on a negative
// count or an overflowing result.
func repeat(s string, count int) (string, error) {
	if count < 0 {
		return "", errNegative
	}
	if count > 0 && len(s)*count/count != len(s) || len(s)*count > 1<<30 {
		return "", errTooLong
	}
	return strings.Repeat(s, count), nil
}

func mathFuncs() []goFunc {
	f1 := map[string]func(float64) float64{
		"Abs": math.Abs, "Acos": math.Acos, "Acosh": math.Acosh, "Asin": math.Asin,
		"Asinh": math.Asinh, "Atan": math.Atan, "Atanh": math.Atanh, "Cbrt": math.Cbrt,
		"Ceil": math.Ceil, "Cos": math.Cos, "Cosh": math.Cosh, "Erf": math.Erf,
		"Erfc": math.Erfc, "Exp": math.Exp, "Exp2": math.Exp2, "Expm1": math.Expm1,
		"Floor": math.Floor, "Gamma": math.Gamma, "J0": math.J0, "J1": math.J1,
		"Log": math.Log, "Log10": math.Log10, "Log1p": math.Log1p, "Log2": math.Log2,
		"Logb": math.Logb, "Round": math.Round, "RoundToEven": math.RoundToEven,
		"Sin": math.Sin, "Sinh": math.Sinh, "Sqrt": math.Sqrt, "Tan": math.Tan,
		"Tanh": math.Tanh, "Trunc": math.Trunc, "Y0": math.Y0, "Y1": math.Y1,
	}
	f2 := map[string]func(float64, float64) float64{
		"Atan2": math.Atan2, "Copysign": math.Copysign, "Dim": math.Dim,
		"Hypot": math.Hypot, "Max": math.Max, "Min": math.Min, "Mod": math.Mod,
		"Nextafter": math.Nextafter, "Pow": math.Pow, "Remainder": math.Remainder,
	}
	var out []goFunc
	for n, f := range f1 {
		out = append(out, goFunc{n, f, true})
	}
	for n, f := range f2 {
		out = append(out, goFunc{n, f, true})
	}
	return append(out,
		goFunc{"Inf", math.Inf, true},
		goFunc{"IsInf", math.IsInf, true},
		goFunc{"IsNaN", math.IsNaN, true},
		goFunc{"NaN", math.NaN, true},
		goFunc{"Pow10", math.Pow10, true},
		goFunc{"Signbit", math.Signbit, true},
	)
}
