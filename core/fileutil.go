package core

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/foliovec/folio/core/pathutil"
)

// This file holds Vectra's FileStorageUtilities.

// EnsureFolderExists creates folderPath in storage unless a file or folder
// already exists there. Errors from storage are returned unchanged.
func EnsureFolderExists(ctx context.Context, storage FileStorage, folderPath string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	exists, err := storage.PathExists(ctx, folderPath)
	if err != nil || exists {
		return err
	}
	return storage.CreateFolder(ctx, folderPath)
}

// GetFileType returns the FileType of filePath from its extension,
// compared case-insensitively with [FileExt], or "" when the extension is
// missing or unknown. Dotfiles (".env") and names ending in a dot have no
// extension.
func GetFileType(filePath string) FileType {
	ext := strings.ToLower(pathutil.Extname(filePath))
	if len(ext) < 2 {
		return ""
	}
	return knownFileType(ext[1:])
}

// GetFileTypeFromContentType returns the FileType of a MIME type: the
// [ContentTypeMap] entry when there is one, otherwise the subtype of a
// "type/subtype" value (without any "+suffix") when it is a known
// extension, otherwise "". Parameters are not stripped, so
// "text/html; charset=utf-8" gives "", as in Vectra.
func GetFileTypeFromContentType(contentType string) FileType {
	if ft, ok := ContentTypeMap[contentType]; ok {
		return ft
	}
	parts := strings.Split(contentType, "/")
	if len(parts) != 2 {
		return ""
	}
	subtype, _, _ := strings.Cut(parts[1], "+")
	return knownFileType(subtype)
}

// TryDeleteFile deletes filePath from storage and returns the error, if
// any, for the caller to inspect or ignore; it never panics on failure.
func TryDeleteFile(ctx context.Context, storage FileStorage, filePath string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return storage.DeleteFile(ctx, filePath)
}

func knownFileType(ext string) FileType {
	if ext != "" && slices.Contains(FileExt, ext) {
		return FileType(ext)
	}
	return ""
}

// binarySniffLen is how much of a file's start LooksBinary searches for a
// NUL byte.
const binarySniffLen = 8 << 10

// LooksBinary reports whether a file is binary rather than text: its
// extension (lowercased, without the dot) is one of BinaryFileExt, or the
// first 8 KiB of head, the start of its content, hold a NUL byte. Text
// encodings that use NUL bytes (UTF-16, UTF-32) count as binary.
func LooksBinary(filePath string, head []byte) bool {
	ext := strings.ToLower(pathutil.Extname(filePath))
	if ext != "" && slices.Contains(BinaryFileExt, ext[1:]) {
		return true
	}
	return bytes.IndexByte(head[:min(len(head), binarySniffLen)], 0) >= 0
}

// LocalFileURI is the URI under which a document read from the local file
// or folder at p is stored: its absolute, cleaned path, with symbolic links
// resolved when the path exists. The folder watcher, the CLI and Vectra's
// watcher store files under such paths, so one file has one URI whatever
// spelling ("notes/a.txt", "./notes/a.txt", its absolute path) named it.
func LocalFileURI(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("local file URI of %q: %w", p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// FileType is a known file extension without its dot ("md", "png"), or
// FileTypeFolder. The zero value "" means unknown.
type FileType string

// FileTypeFolder is the FileType of folders.
const FileTypeFolder FileType = "folder"

// Extension lists, as Vectra's FileType module defines them. Treat them as
// read-only.
var (
	ImageFileExt    = []string{"png", "jpg", "jpeg", "gif", "bmp", "tiff", "tif", "webp", "svg", "heic", "heif"}
	VideoFileExt    = []string{"mp4", "avi", "mov", "wmv", "flv", "mkv", "webm", "mpg", "mpeg", "3gp"}
	AudioFileExt    = []string{"mp3", "wav", "flac", "m4a", "aac", "ogg", "wma", "aiff", "alac"}
	MediaFileExt    = concat(ImageFileExt, VideoFileExt, AudioFileExt)
	ModelFileExt    = []string{"obj", "fbx", "stl", "dae", "ply", "3ds", "gltf", "glb"}
	ArchiveFileExt  = []string{"zip", "tar", "gz", "7z", "rar", "tgz"}
	SystemFileExt   = []string{"exe", "dll", "bin", "iso", "dmg", "msi", "deb", "rpm", "apk", "appimage", "rom", "efi"}
	DatabaseFileExt = []string{"sqlite", "sql", "mdb", "accdb"}
	BinaryFileExt   = concat(MediaFileExt, ModelFileExt, ArchiveFileExt, SystemFileExt, DatabaseFileExt)
	DocumentFileExt = []string{"pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "rtf", "tex"}
	// TextDocumentFileExt are plain-text document formats.
	TextDocumentFileExt = []string{"txt", "csv", "log", "md", "rst"}
	CodeFileExt         = []string{"js", "ts", "jsx", "tsx", "py", "java", "c", "cpp", "cs", "php", "go", "rb", "rs",
		"swift", "kt", "dart", "sh", "bash", "ps1", "bat", "cmd", "html", "css", "scss", "sass", "less", "xml",
		"json", "yaml", "yml", "ini", "conf", "cfg", "env"}
	PlainTextFileExt = concat(TextDocumentFileExt, CodeFileExt)
	// FileExt is every known extension.
	FileExt = concat(BinaryFileExt, DocumentFileExt, PlainTextFileExt)
)

// ContentTypeMap maps MIME types to file types.
var ContentTypeMap = map[string]FileType{
	"text/html":                "html",
	"text/plain":               "txt",
	"text/css":                 "css",
	"text/javascript":          "js",
	"application/json":         "json",
	"application/xml":          "xml",
	"application/javascript":   "js",
	"application/pdf":          "pdf",
	"image/jpeg":               "jpg",
	"image/png":                "png",
	"image/gif":                "gif",
	"image/svg+xml":            "svg",
	"application/zip":          "zip",
	"application/octet-stream": "bin",
	"audio/mpeg":               "mp3",
	"video/mp4":                "mp4",
	"video/webm":               "webm",
	"text/csv":                 "csv",
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
