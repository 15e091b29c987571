package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

func (a *app) publishCommand() *cobra.Command {
	var force bool
	var model modelFlags
	cmd := &cobra.Command{
		Use:   "publish <index> <folder>",
		Short: "Write a copy of an index that any static web host can serve, for folio query https://… and the browser",
		Long: "Write a copy of an index into a new folder that any static web host (a documentation\n" +
			"site's host, a CDN, a bucket's public endpoint) can serve: in the segmented layout,\n" +
			"compacted, with 4-bit codes, partitions when it has 50,000 rows or more, and the keyword\n" +
			"file and document texts that rankings and passages read, so that a query fetches a\n" +
			"few parts of it with HTTP Range requests. Upload the folder as it is; query it with\n" +
			"folio query https://host/path/<folder> \"…\" or open it from the JavaScript module. The\n" +
			"index names its embeddings model, which is not copied: the hashing model needs nothing,\n" +
			"an ONNX model is fetched by its hub id, and a hosted model needs an API key where the\n" +
			"query runs. A document index that names no model (one Vectra wrote) takes it from\n" +
			"--hash-dims, --model or --keys, recorded in the copy. The source index is not changed;\n" +
			"a publish that fails removes the folder it began.",
		Example: "  folio publish docs-index public/search\n  folio query https://example.com/search \"how do I install it\"",
		Args:    exactArgs(2, "<index> <folder>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := a.publish(cmd.Context(), args[0], args[1], force, &model)
			if err != nil {
				return err
			}
			a.show(out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace the folder if it exists")
	model.register(cmd)
	return cmd
}

// publishResult is what publish reports.
type publishResult struct {
	Folder     string       `json:"folder"`
	Files      int          `json:"files"`
	IndexBytes int64        `json:"indexBytes"`
	Rows       int          `json:"rows"`
	Partitions int          `json:"partitions"`
	Model      *modelRecord `json:"model,omitempty"`
	// ModelBytes is the bytes of the model published beside the index:
	// none, as the model is named, not copied.
	ModelBytes int64  `json:"modelBytes"`
	Note       string `json:"note,omitempty"`
}

func (r publishResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "published %s: %d files, %d bytes of index, %d rows", r.Folder, r.Files, r.IndexBytes, r.Rows)
	if r.Partitions > 0 {
		fmt.Fprintf(w, " in %d partitions", r.Partitions)
	}
	fmt.Fprintln(w)
	if r.Model != nil {
		fmt.Fprintf(w, "model: %s (%d bytes published with the index)\n", r.Model, r.ModelBytes)
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
}

// publishOptions are the index options of a published index: 4-bit
// codes, so a query over HTTP reads codes and the rows it re-ranks,
// partitions where the index is large enough, and no file kept for
// readers of an earlier state (the copy has none).
func publishOptions(storage core.FileStorage, codec core.IndexCodec) core.IndexOptions {
	return core.IndexOptions{Storage: storage, Codec: codec, ScanCodes: core.CodesInt4, Partitions: true, RetainDropped: -1}
}

// publish copies the index src into the new folder dst, converts the copy
// to the segmented layout, compacts it with codes and partitions, and
// writes its keyword file. A failure removes dst.
func (a *app) publish(ctx context.Context, src, dst string, force bool, flags *modelFlags) (out publishResult, err error) {
	e, err := a.openExisting(ctx, src)
	if err != nil {
		return publishResult{}, err
	}
	if isWebURL(dst) {
		return publishResult{}, usagef("<folder> %s: publish writes a local folder; upload it to the host afterwards", dst)
	}
	storage, err := a.storage(ctx)
	if err != nil {
		return publishResult{}, err
	}
	to := a.folderPath(dst)
	if pathutil.Normalize(to) == pathutil.Normalize(e.folder) {
		return publishResult{}, usagef("<folder> is the index itself: publish writes a copy elsewhere")
	}
	// The model, before anything is written: a document index's queries
	// embed with it, and the copy records it.
	var model core.EmbeddingsModel
	var rec modelRecord
	if e.documents {
		if model, rec, err = flags.resolve(ctx, a, e.storage, e.folder); err != nil {
			return publishResult{}, err
		}
	}
	if ok, err := storage.PathExists(ctx, to); err != nil {
		return publishResult{}, err
	} else if ok && !force {
		return publishResult{}, usagef("%s exists: choose a new folder, or --force to replace it", to)
	} else if ok {
		if err := storage.DeleteFolder(ctx, to); err != nil {
			return publishResult{}, err
		}
	}
	defer func() {
		if err != nil {
			_ = storage.DeleteFolder(context.WithoutCancel(ctx), to) // nothing half published stays
		}
	}()
	if err := copyFolder(ctx, e.storage, e.folder, storage, to); err != nil {
		return publishResult{}, fmt.Errorf("copy %s to %s: %w", e.folder, to, err)
	}
	if model != nil {
		if err := rememberModel(ctx, storage, to, rec); err != nil {
			return publishResult{}, err
		}
	}
	if err := folio.MigrateIndex(ctx, to, folio.MigrateOptions{To: folio.FormatSegmented, Storage: storage}); err != nil {
		return publishResult{}, err
	}
	codec, err := folio.DetectCodec(ctx, to, storage)
	if err != nil {
		return publishResult{}, err
	}
	out = publishResult{Folder: to}
	switch {
	case model != nil:
		out.Model = &rec
		if rec.Kind == "hosted" {
			out.Note = "the index's model is hosted: a query of the published index needs its API key, so a web page cannot embed its queries without exposing the key"
		}
	case e.documents:
		out.Note = "the index names no embeddings model: name it with --hash-dims, --model or --keys, so that publish records it and writes the keyword file (without it, a hybrid query over HTTP reads every document's text)"
	}
	opts := publishOptions(storage, codec)
	open := func() (*core.LocalIndex, *core.LocalDocumentIndex, error) {
		if !e.documents {
			ix, err := folio.NewLocalIndex(to, &opts)
			return ix, nil, err
		}
		docs, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: to, Embeddings: model, IndexOptions: opts})
		if err != nil {
			return nil, nil, err
		}
		return docs.LocalIndex, docs, nil
	}
	ix, _, err := open()
	if err != nil {
		return publishResult{}, err
	}
	// Through the index file and back: one segment, without the rows of
	// deleted items, with 4-bit codes whatever the source kept.
	for _, layout := range []core.Layout{core.LayoutFile, core.LayoutSegmented} {
		if err := ix.ConvertLayout(ctx, layout); err != nil {
			return publishResult{}, err
		}
	}
	if _, err := ix.Vacuum(ctx); err != nil {
		return publishResult{}, err
	}
	// Opened again from the new segment: its load trains the partitions
	// and writes their file.
	ix, docs, err := open()
	if err != nil {
		return publishResult{}, err
	}
	if docs != nil && model != nil {
		// The first ranked query builds the keyword index and writes its
		// file, which a query over HTTP then reads instead of every text.
		if _, err := docs.QueryDocuments(ctx, "folio", &core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}); err != nil {
			return publishResult{}, fmt.Errorf("write the keyword file: %w", err)
		}
	}
	st, err := ix.GetIndexStats(ctx)
	if err != nil {
		return publishResult{}, err
	}
	out.Rows, out.Partitions = st.Items, st.Partitions
	// The load wrote the grouped codes file (<index file>.groups, the 4-bit
	// codes again, in partition order), which serves an open that maps the
	// folder: a static host's readers read the codes from the segment in
	// ranges, and a local open of the copy writes the file again.
	if err := storage.DeleteFile(ctx, pathutil.Join(to, ix.IndexName()+".groups")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return publishResult{}, err
	}
	if out.Files, out.IndexBytes, err = folderSize(ctx, storage, to); err != nil {
		return publishResult{}, err
	}
	return out, nil
}

// copyFolder copies the files of folder from into the new folder to.
func copyFolder(ctx context.Context, from core.FileStorage, folder string, into core.FileStorage, to string) error {
	list, err := from.ListFiles(ctx, folder, core.ListAll)
	if err != nil {
		return err
	}
	if err := into.CreateFolder(ctx, to); err != nil {
		return err
	}
	for _, f := range list {
		if f.IsFolder {
			return fmt.Errorf("%s holds a folder, %s: an index folder holds files only: %w", folder, f.Name, core.ErrInvalidArgument)
		}
		if f.Name == storagefs.LockFile {
			continue // the folder's lock, not the index's
		}
		err := copyFile(ctx, from, pathutil.Join(folder, f.Name), into, pathutil.Join(to, f.Name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a dropped file deleted meanwhile
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies one file: streamed where both storages stream (a
// segment may be larger than memory), else read whole.
func copyFile(ctx context.Context, from core.FileStorage, src string, into core.FileStorage, dst string) error {
	rs, okR := from.(core.FileStreamer)
	ws, okW := into.(core.FileStreamWriter)
	if !okR || !okW {
		b, err := from.ReadFile(ctx, src)
		if err != nil {
			return err
		}
		return into.CreateFile(ctx, dst, b)
	}
	rc, _, err := rs.OpenFile(ctx, src)
	if err != nil {
		return err
	}
	defer rc.Close()
	return ws.UpsertFileFrom(ctx, dst, func(w io.Writer) error {
		_, err := io.Copy(w, rc)
		return err
	})
}

// folderSize counts the files of folder and their bytes.
func folderSize(ctx context.Context, storage core.FileStorage, folder string) (files int, size int64, err error) {
	list, err := storage.ListFiles(ctx, folder, core.ListFilesOnly)
	if err != nil {
		return 0, 0, err
	}
	for _, f := range list {
		n, err := fileSize(ctx, storage, pathutil.Join(folder, f.Name))
		if err != nil {
			return 0, 0, err
		}
		files++
		size += n
	}
	return files, size, nil
}

// fileSize is a file's length: from its stream where the storage tells
// it, else read whole.
func fileSize(ctx context.Context, storage core.FileStorage, p string) (int64, error) {
	if rs, ok := storage.(core.FileStreamer); ok {
		rc, n, err := rs.OpenFile(ctx, p)
		if err != nil {
			return 0, err
		}
		rc.Close()
		if n >= 0 {
			return n, nil
		}
	}
	b, err := storage.ReadFile(ctx, p)
	return int64(len(b)), err
}
