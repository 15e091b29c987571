package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/foliovec/folio/conformance/testkit/clustered"
)

// faissIVF measures FAISS's IVF index with flat lists (Debian's
// python3-faiss, faiss_ivf.py beside this file) on the vectors and
// queries of the run, against the same exact answers: 1,024 lists, as
// many probes as the partitioned phase's 0.99 target needs and others.
// The vectors are written once, from the generator, to raw float32 files
// beside the index, and the trained FAISS index kept there for later runs
// (its build takes minutes on Debian's generic build).
func faissIVF(c config) error {
	base, queries := c.index()+".f32", c.index()+fmt.Sprintf(".queries-%d.f32", c.queries)
	set := clustered.New(c.d, c.centres, 0, c.seed)
	if err := writeVectors(base, c.n, c.d, set.Vector); err != nil {
		return err
	}
	if err := writeVectors(queries, c.queries, c.d, set.Query); err != nil {
		return err
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "faiss_ivf.py")
	// Debian's python3-faiss is a module of Debian's Python, which a
	// python3 earlier on the PATH (pyenv, a virtual environment) lacks.
	cmd := exec.Command("/usr/bin/python3", script, "--base", base, "--queries", queries, "--truth", c.truth(),
		"--d", strconv.Itoa(c.d), "--k", strconv.Itoa(topK), "--nlist", "1024", "--nprobe", "8,16,32,64", "--batch", strconv.Itoa(batchSize), "--cache", c.index()+".faiss-ivf1024")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s (Debian's python3-faiss installed? make bench-peers installs it): %w", script, err)
	}
	return nil
}

// writeVectors writes rows vectors of d values, row i from fill, to path
// as little-endian float32, unless path holds them already.
func writeVectors(path string, rows, d int, fill func(i int, dst []float32)) error {
	if st, err := os.Stat(path); err == nil && st.Size() == int64(rows)*int64(d)*4 {
		return nil
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	v := make([]float32, d)
	b := make([]byte, 4*d)
	for i := range rows {
		fill(i, v)
		for j, x := range v {
			binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
