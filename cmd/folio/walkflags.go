package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/core/filetree"
)

// walkFlags are the rules add and watch read local folders by: inside the
// folders named unless --follow-links, files over --max-file-size skipped.
type walkFlags struct {
	followLinks bool
	maxFileSize byteSize
}

func (f *walkFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.followLinks, "follow-links", false, "follow symbolic links that lead outside the folders named (by default they are skipped and listed)")
	f.maxFileSize = filetree.DefaultMaxFileBytes
	cmd.Flags().Var(&f.maxFileSize, "max-file-size", "`SIZE` of the largest file read (e.g. 512KiB, 50MB, 1GiB; 0: no cap); larger files are skipped unread")
}

// maxBytes is the cap as the fetcher and watcher options take it.
func (f *walkFlags) maxBytes() int64 {
	if f.maxFileSize == 0 {
		return -1 // no cap
	}
	return int64(f.maxFileSize)
}

// byteSize is a flag value in bytes, written with an optional unit: k, M,
// G (powers of 1,000 with B, of 1,024 with iB or alone).
type byteSize int64

func (s *byteSize) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *byteSize) Type() string { return "size" }

func (s *byteSize) Set(v string) error {
	num := strings.TrimRightFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToLower(strings.TrimSpace(v[len(num):]))
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a size: write a whole number of bytes, or one with a unit (512KiB, 50MB, 1G)", v)
	}
	mult := map[string]int64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	}[unit]
	if mult == 0 {
		return fmt.Errorf("%q is not a size: the unit may be B, k, KB, KiB, M, MB, MiB, G, GB or GiB", v)
	}
	if n > (1<<63-1)/mult {
		return fmt.Errorf("%q is too large", v)
	}
	*s = byteSize(n * mult)
	return nil
}
