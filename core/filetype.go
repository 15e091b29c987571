package core

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
