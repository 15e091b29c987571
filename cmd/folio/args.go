package main

import (
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// vectraArgs rewrites a command line written in Vectra's option syntax
// (yargs) into the one cobra parses, so that Vectra's command lines run
// unchanged:
//
//   - an array option (--uri, --list, --extensions and their one-letter
//     aliases) takes every word after it up to the next option:
//     "--uri a.md b.md" is "--uri a.md --uri b.md";
//   - "--no-X" is "--X=false", and "--X true" or "--X false" sets the
//     boolean option X;
//   - camelCase spellings name the kebab-case options ("--chunkSize" is
//     "--chunk-size");
//   - Vectra's two-letter aliases may take one dash ("-cs 256" is
//     "--cs 256");
//   - an unknown "--option" is dropped, with the word after it when that
//     is not an option (yargs reads it as the option's value), and ignored
//     is told of it, as yargs ignores options it does not know.
//
// Words after "--" are left alone. cmd is the command args run, whose
// flags decide what each word is.
func vectraArgs(cmd *cobra.Command, args []string, ignored func(option string)) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue, ok := optionWord(arg)
		if !ok {
			out = append(out, arg)
			continue
		}
		f := lookupFlag(cmd, name)
		if f == nil && strings.HasPrefix(name, "no-") {
			if b := lookupFlag(cmd, name[3:]); b != nil && b.Value.Type() == "bool" && !hasValue {
				out = append(out, "--"+b.Name+"=false")
				continue
			}
		}
		if f == nil && strings.HasPrefix(arg, "--") && name != "help" && name != "version" {
			dropped := arg
			if !hasValue && i+1 < len(args) && args[i+1] != "--" && !startsOption(args[i+1]) {
				i++
				dropped += " " + args[i]
			}
			ignored(dropped)
			continue
		}
		if f == nil {
			out = append(out, arg) // a shorthand group, or cobra reports it
			continue
		}
		switch {
		case f.Value.Type() == "bool" && !hasValue && i+1 < len(args) && isBoolWord(args[i+1]):
			out = append(out, "--"+f.Name+"="+strings.ToLower(args[i+1]))
			i++
		case isArrayFlag(f):
			values := []string{}
			if hasValue {
				values = append(values, value)
			}
			for i+1 < len(args) && args[i+1] != "--" && !startsOption(args[i+1]) {
				values = append(values, args[i+1])
				i++
			}
			if len(values) == 0 {
				out = append(out, "--"+f.Name) // cobra reports the missing value
			}
			for _, v := range values {
				out = append(out, "--"+f.Name+"="+v)
			}
		case hasValue:
			out = append(out, "--"+f.Name+"="+value)
		default:
			out = append(out, "--"+f.Name)
		}
	}
	return out
}

// optionWord splits an option word into its name (kebab-case) and value:
// "--chunkSize=5" is ("chunk-size", "5", true). A single dash names a
// one-letter shorthand or a longer alias ("-cs"); a shorthand group such
// as "-bo" is left to cobra (ok is false when the letters name no option).
func optionWord(arg string) (name, value string, hasValue, ok bool) {
	switch {
	case strings.HasPrefix(arg, "--") && len(arg) > 2:
		arg = arg[2:]
	case strings.HasPrefix(arg, "-") && len(arg) > 1 && !isNumber(arg):
		arg = arg[1:]
	default:
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(arg, "=")
	return kebab(name), value, hasValue, true
}

// lookupFlag finds the flag a name (long, alias or one-letter shorthand)
// names on cmd, its own or inherited.
func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		if len(name) == 1 {
			if f := fs.ShorthandLookup(name); f != nil {
				return f
			}
			continue
		}
		if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// isArrayFlag reports whether f takes many values, as Vectra's array
// options do.
func isArrayFlag(f *pflag.Flag) bool {
	t := f.Value.Type()
	return t == "stringArray" || t == "stringSlice"
}

func isBoolWord(s string) bool {
	s = strings.ToLower(s)
	return s == "true" || s == "false"
}

// startsOption reports whether a word is an option rather than a value: a
// dash and something that is not a number.
func startsOption(s string) bool {
	return len(s) > 1 && s[0] == '-' && !isNumber(s)
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	return true
}

// kebab turns a camelCase name into its kebab-case spelling:
// "documentCount" is "document-count"; other names are unchanged.
func kebab(name string) string {
	if strings.ToLower(name) == name {
		return name
	}
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// plainBool is a boolean flag's value that help shows as "--json" rather
// than pflag's "--json[=true|false]": "--json", "--json=false", "--no-json"
// and "--json false" all work (see vectraArgs).
type plainBool struct{ pflag.Value }

// plainBoolFlags gives every boolean flag of cmd and its subcommands,
// help and version included, a plainBool value.
func plainBoolFlags(cmd *cobra.Command) {
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if _, done := f.Value.(plainBool); !done && f.Value.Type() == "bool" {
				f.Value = plainBool{f.Value}
			}
		})
	}
	for _, c := range cmd.Commands() {
		plainBoolFlags(c)
	}
}
