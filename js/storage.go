//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/foliovec/folio/core"
)

// jsStorage is a FileStorage written in JavaScript, with Vectra's
// methods, each returning a Promise.
type jsStorage struct{ obj js.Value }

func (s jsStorage) do(ctx context.Context, name string, args ...any) (_ js.Value, err error) {
	defer guard(&err, "do")
	v, err := invoke(ctx, s.obj, name, args...)
	if err != nil {
		return v, fmt.Errorf("%s %q: %w", name, fmt.Sprint(args[0]), storageError(err))
	}
	return v, nil
}

func (s jsStorage) CreateFile(ctx context.Context, p string, content []byte) (err error) {
	defer guard(&err, "createFile")
	_, err = s.do(ctx, "createFile", p, uint8Array(content))
	return err
}

func (s jsStorage) UpsertFile(ctx context.Context, p string, content []byte) (err error) {
	defer guard(&err, "upsertFile")
	_, err = s.do(ctx, "upsertFile", p, uint8Array(content))
	return err
}

func (s jsStorage) ReadFile(ctx context.Context, p string) (_ []byte, err error) {
	defer guard(&err, "readFile")
	v, err := s.do(ctx, "readFile", p)
	if err != nil {
		return nil, err
	}
	return bytesOf(v)
}

func (s jsStorage) DeleteFile(ctx context.Context, p string) (err error) {
	defer guard(&err, "deleteFile")
	_, err = s.do(ctx, "deleteFile", p)
	return err
}

func (s jsStorage) PathExists(ctx context.Context, p string) (_ bool, err error) {
	defer guard(&err, "pathExists")
	v, err := s.do(ctx, "pathExists", p)
	return v.Truthy(), err
}

func (s jsStorage) CreateFolder(ctx context.Context, p string) (err error) {
	defer guard(&err, "createFolder")
	_, err = s.do(ctx, "createFolder", p)
	return err
}

func (s jsStorage) DeleteFolder(ctx context.Context, p string) (err error) {
	defer guard(&err, "deleteFolder")
	_, err = s.do(ctx, "deleteFolder", p)
	return err
}

func (s jsStorage) GetDetails(ctx context.Context, p string) (_ core.FileDetails, err error) {
	defer guard(&err, "getDetails")
	v, err := s.do(ctx, "getDetails", p)
	if err != nil {
		return core.FileDetails{}, err
	}
	var d fileDetails
	if err := fromJSON(v, &d); err != nil {
		return core.FileDetails{}, fmt.Errorf("getDetails %q: %w", p, err)
	}
	return d.core(), nil
}

func (s jsStorage) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) (_ []core.FileDetails, err error) {
	defer guard(&err, "listFiles")
	if filter == "" {
		filter = core.ListAll
	}
	v, err := s.do(ctx, "listFiles", p, string(filter))
	if err != nil {
		return nil, err
	}
	var list []fileDetails
	if err := fromJSON(v, &list); err != nil {
		return nil, fmt.Errorf("listFiles %q: %w", p, err)
	}
	out := make([]core.FileDetails, len(list))
	for i, d := range list {
		out[i] = d.core()
	}
	return out, nil
}

// fileDetails is Vectra's FileDetails.
type fileDetails struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	IsFolder bool   `json:"isFolder"`
	FileType string `json:"fileType,omitempty"`
}

func (d fileDetails) core() core.FileDetails {
	return core.FileDetails{Name: d.Name, Path: d.Path, IsFolder: d.IsFolder, FileType: core.FileType(d.FileType)}
}

// detailsOf is d as Vectra's storages give it: a folder has no fileType.
func detailsOf(d core.FileDetails) fileDetails {
	out := fileDetails{Name: d.Name, Path: d.Path, IsFolder: d.IsFolder}
	if !d.IsFolder {
		out.FileType = string(d.FileType)
	}
	return out
}
