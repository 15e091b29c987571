package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// uriFlags are --uri and --list: the documents a command works on.
type uriFlags struct {
	uris  []string
	lists []string
}

func (u *uriFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringArrayVarP(&u.uris, "uri", "u", nil, "`URI`s: "+what+" (several: --uri a b, or --uri a --uri b)")
	cmd.Flags().StringArrayVarP(&u.lists, "list", "l", nil, "a `FILE` listing "+what+", one per line (several allowed)")
}

// all returns the URIs of --uri and of the --list file (lines trimmed,
// blank ones dropped, as Vectra reads it); none is a usage error.
func (u *uriFlags) all() ([]string, error) {
	out := append([]string(nil), u.uris...)
	for _, list := range u.lists {
		raw, err := os.ReadFile(list)
		if err != nil {
			return nil, fmt.Errorf("list file: %w", err)
		}
		for line := range strings.SplitSeq(string(raw), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	if len(out) == 0 {
		return nil, usagef(`you must specify either one or more "--uri <link>" or a "--list <file path>" of links`)
	}
	return out, nil
}
