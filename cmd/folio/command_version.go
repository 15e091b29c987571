package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
)

// version is the module version folio was built at, or folio.Version for a
// build from a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return folio.Version
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print folio's version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			a.show(versionResult{Version: version()})
			return nil
		},
	}
}
