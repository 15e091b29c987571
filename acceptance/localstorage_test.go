package acceptance_test

import storagefs "github.com/foliovec/folio/adapters/storage-fs"

// localStorage is the storage over the whole file system, which
// storagefs.New never fails to make without options.
func localStorage() *storagefs.LocalFileStorage {
	s, err := storagefs.New(nil)
	if err != nil {
		panic(err)
	}
	return s
}
