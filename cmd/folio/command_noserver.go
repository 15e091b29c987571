//go:build noserver

package main

import "github.com/spf13/cobra"

// A folio built with -tags noserver (make demo's quick build) leaves out
// the gRPC server, which takes a third of the command's build: serve, stop
// and generate say so and what builds them.

func (a *app) serveCommand() *cobra.Command    { return a.notInThisBuild("serve") }
func (a *app) stopCommand() *cobra.Command     { return a.notInThisBuild("stop") }
func (a *app) generateCommand() *cobra.Command { return a.notInThisBuild("generate") }

func (a *app) notInThisBuild(name string) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              "Not in this build (make demo builds folio without the gRPC server); make install builds it",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return usagef("folio %s is not in this build: it was built with -tags noserver (as make demo builds it, to build quickly); make install builds the full command", name)
		},
	}
}
