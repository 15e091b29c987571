package storagetest

import "github.com/foliovec/folio/core"

// Optional is what a storage implements of core's optional storage
// capabilities: each field is the storage as that interface, or nil where
// it does not implement it. The suite learns a storage's capabilities only
// through [OptionalOf]: a case that needs one runs where it is set and is
// skipped, naming it, where it is not.
type Optional struct {
	GroupWriter      core.GroupWriter
	FileStreamer     core.FileStreamer
	FileStreamWriter core.FileStreamWriter
	FileMapper       core.FileMapper
	FileRangeReader  core.FileRangeReader
	TempFileRemover  core.TempFileRemover
	FolderLocker     core.FolderLocker
	FileVersioner    core.FileVersioner
}

// OptionalOf reports which of core's optional storage capabilities s
// implements.
func OptionalOf(s core.FileStorage) Optional {
	var o Optional
	o.GroupWriter, _ = s.(core.GroupWriter)
	o.FileStreamer, _ = s.(core.FileStreamer)
	o.FileStreamWriter, _ = s.(core.FileStreamWriter)
	o.FileMapper, _ = s.(core.FileMapper)
	o.FileRangeReader, _ = s.(core.FileRangeReader)
	o.TempFileRemover, _ = s.(core.TempFileRemover)
	o.FolderLocker, _ = s.(core.FolderLocker)
	o.FileVersioner, _ = s.(core.FileVersioner)
	return o
}

// Names lists the capabilities o holds, as their interfaces are named in
// core ("core.GroupWriter", …), in the order of o's fields.
func (o Optional) Names() []string {
	var names []string
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"core.GroupWriter", o.GroupWriter != nil},
		{"core.FileStreamer", o.FileStreamer != nil},
		{"core.FileStreamWriter", o.FileStreamWriter != nil},
		{"core.FileMapper", o.FileMapper != nil},
		{"core.FileRangeReader", o.FileRangeReader != nil},
		{"core.TempFileRemover", o.TempFileRemover != nil},
		{"core.FolderLocker", o.FolderLocker != nil},
		{"core.FileVersioner", o.FileVersioner != nil},
	} {
		if c.ok {
			names = append(names, c.name)
		}
	}
	return names
}
