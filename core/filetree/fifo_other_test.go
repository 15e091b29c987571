//go:build !unix

package filetree_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs") }
