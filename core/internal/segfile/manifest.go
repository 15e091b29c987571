package segfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/foliovec/folio/core/internal/errs"
)

const (
	// ManifestExt ends the manifest's name: "<index file>.segments".
	ManifestExt    = ".segments"
	manifestFormat = "folio-segments"
	// manifestVersion is the manifest's format version.
	manifestVersion = 1
)

// Manifest is the segmented layout's manifest file (JSON): the segments in
// the order their items are stored, and the serial the next item gets.
type Manifest struct {
	Format        string `json:"format"`
	FormatVersion int    `json:"formatVersion"`
	// Version and Indexed are the index's version and metadata config
	// (Indexed nil: no config; non-nil empty: "indexed": []).
	Version int       `json:"version"`
	Indexed *[]string `json:"indexed,omitempty"`
	// NextSerial is the serial the next stored item gets.
	NextSerial uint32  `json:"nextSerial"`
	Segments   []Entry `json:"segments"`
}

// Entry is a segment as the manifest names it.
type Entry struct {
	Name string `json:"name"`
	// First is the least serial the segment may hold: every row of it has
	// a serial at least First and less than the next segment's First.
	First      uint32 `json:"first"`
	Rows       int    `json:"rows"`
	Tombstones int    `json:"tombstones"`
}

// NewManifest is the manifest of an index of version with no segments;
// indexed are its indexed metadata fields (nil: no metadata config).
func NewManifest(version int, indexed []string) Manifest {
	m := Manifest{Format: manifestFormat, FormatVersion: manifestVersion, Version: version, Segments: []Entry{}}
	if indexed != nil {
		idx := slices.Clone(indexed)
		m.Indexed = &idx
	}
	return m
}

// IndexedFields is a copy of the indexed metadata fields, nil when the
// manifest has no metadata config.
func (m *Manifest) IndexedFields() []string {
	if m.Indexed == nil {
		return nil
	}
	return slices.Clone(*m.Indexed)
}

// Rows is the rows of every segment.
func (m *Manifest) Rows() int {
	n := 0
	for _, e := range m.Segments {
		n += e.Rows
	}
	return n
}

// Names are the segments' file names, in order.
func (m *Manifest) Names() []string {
	out := make([]string, len(m.Segments))
	for i, e := range m.Segments {
		out[i] = e.Name
	}
	return out
}

// EncodeManifest is m as the manifest file's bytes.
func EncodeManifest(m Manifest) ([]byte, error) {
	return json.MarshalIndent(m, "", "  ")
}

// DecodeManifest reads a manifest file, checking that its segments are in
// order and their counts possible; anything else is ErrCorrupt.
func DecodeManifest(raw []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("segments manifest: %v: %w", err, errs.ErrCorrupt)
	}
	if m.Format != manifestFormat || m.FormatVersion != manifestVersion {
		return Manifest{}, fmt.Errorf("segments manifest: format %q %d, want %q %d: %w", m.Format, m.FormatVersion, manifestFormat, manifestVersion, errs.ErrCorrupt)
	}
	var next uint32
	for i, e := range m.Segments {
		if e.Rows < 0 || e.Tombstones < 0 || (i > 0 && e.First < next) || e.First > m.NextSerial {
			return Manifest{}, fmt.Errorf("segments manifest: segment %q out of order: %w", e.Name, errs.ErrCorrupt)
		}
		next = e.First
	}
	// Each segment's rows have serials from its First up to the next
	// segment's, each serial once, and its tombstones name serials of the
	// segments before it: counts past those are no index's. (They are
	// checked against the segments' own headers as those are read.)
	for i, e := range m.Segments {
		end := m.NextSerial
		if i+1 < len(m.Segments) {
			end = m.Segments[i+1].First
		}
		if uint64(e.Rows) > uint64(end-e.First) || uint64(e.Tombstones) > uint64(e.First) {
			return Manifest{}, fmt.Errorf("segments manifest: segment %q: %d rows and %d tombstones for serials %d to %d: %w", e.Name, e.Rows, e.Tombstones, e.First, end, errs.ErrCorrupt)
		}
	}
	return m, nil
}
