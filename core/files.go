package core

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"sync"
)

// files is the one layer between the engine and its storage and codec. It
// learns once, when the index is made, which optional capabilities they
// have (the storage's FileStreamer, FileStreamWriter, FileMapper,
// FileRangeReader, GroupWriter, FolderLocker, FileVersioner and
// TempFileRemover; the codec's VectorArenaDecoder, IndexStreamDecoder and
// IndexStreamEncoder; a range file's RangeBatcher) and holds every
// fallback: a stream read or a whole one, a streamed write or a buffered
// one, a grouped write or several, many parts in one read or one each.
// Nothing else in the engine asks what the storage or the codec can do.
type files struct {
	storage FileStorage
	codec   IndexCodec

	// The storage's capabilities, nil where it lacks one.
	streamer  FileStreamer
	writer    FileStreamWriter
	mapper    FileMapper
	ranger    FileRangeReader
	grouper   GroupWriter
	versioner FileVersioner
	temps     TempFileRemover
	locks     bool // a FolderLocker: the folder can be locked

	// The codec's capabilities, nil where it lacks one.
	arenaDecoder  VectorArenaDecoder
	streamDecoder IndexStreamDecoder
	streamEncoder IndexStreamEncoder

	bufs sync.Pool // *bufio.Writer of saveBuffer bytes, between an encoder and the storage
}

// newFiles probes storage and codec (either may be nil until checked).
func newFiles(storage FileStorage, codec IndexCodec) *files {
	f := &files{storage: storage, codec: codec}
	f.streamer, _ = storage.(FileStreamer)
	f.writer, _ = storage.(FileStreamWriter)
	f.mapper, _ = storage.(FileMapper)
	f.ranger, _ = storage.(FileRangeReader)
	f.grouper, _ = storage.(GroupWriter)
	f.versioner, _ = storage.(FileVersioner)
	f.temps, _ = storage.(TempFileRemover)
	_, f.locks = storage.(FolderLocker)
	f.arenaDecoder, _ = codec.(VectorArenaDecoder)
	f.streamDecoder, _ = codec.(IndexStreamDecoder)
	f.streamEncoder, _ = codec.(IndexStreamEncoder)
	return f
}

// open returns a reader of the file at p and its size in bytes: the
// storage's stream when it has one, else the file read whole. close ends
// the read.
func (f *files) open(ctx context.Context, p string) (r io.Reader, size int64, close func(), err error) {
	if f.streamer != nil {
		rc, n, err := f.streamer.OpenFile(ctx, p)
		if err != nil {
			return nil, 0, nil, err
		}
		return bufio.NewReaderSize(rc, 1<<20), n, func() { rc.Close() }, nil
	}
	raw, err := f.storage.ReadFile(ctx, p)
	if err != nil {
		return nil, 0, nil, err
	}
	return bytes.NewReader(raw), int64(len(raw)), func() {}, nil
}

// decodeIndex reads and decodes the index file at p, and returns its size
// in bytes: decoded as it is read, never held whole, when the storage
// streams and the codec decodes streams; else read whole and decoded into
// one arena when the codec can.
func (f *files) decodeIndex(ctx context.Context, p string) (data IndexData, arena []float32, size int64, err error) {
	if f.streamer != nil && f.streamDecoder != nil {
		rc, size, err := f.streamer.OpenFile(ctx, p)
		if err != nil {
			return IndexData{}, nil, 0, err
		}
		defer rc.Close()
		data, arena, err = f.streamDecoder.DecodeIndexFrom(rc, size)
		if ctxErr := ctx.Err(); err != nil && ctxErr != nil {
			return IndexData{}, nil, 0, ctxErr
		}
		return data, arena, size, err
	}
	raw, err := f.storage.ReadFile(ctx, p)
	if err != nil {
		return IndexData{}, nil, 0, err
	}
	if f.arenaDecoder != nil {
		data, arena, err = f.arenaDecoder.DeserializeIndexArena(raw)
	} else {
		data, err = f.codec.DeserializeIndex(raw)
	}
	return data, arena, int64(len(raw)), err
}

// encodeIndex writes src to w in the codec's index format: encoded as it
// goes when the codec encodes streams, else serialized whole first.
func (f *files) encodeIndex(w io.Writer, src IndexSource) error {
	if f.streamEncoder != nil {
		return f.streamEncoder.EncodeIndexTo(w, src)
	}
	raw, err := f.codec.SerializeIndex(src.Data())
	if err != nil {
		return err
	}
	_, err = w.Write(raw)
	return err
}

// write creates or replaces the file at p with what fill writes, through a
// buffer of saveBuffer bytes: straight into the file when the
// storage takes streams (hinted cold, when cold, for a file read again
// only by other processes), else gathered, then written whole. Nothing is
// stored when fill fails.
func (f *files) write(ctx context.Context, p string, cold bool, fill func(w io.Writer) error) error {
	buffered := func(w io.Writer) error {
		bw := f.getWriter(w)
		defer f.putWriter(bw)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if f.writer != nil {
		return f.writer.UpsertFileFrom(ctx, p, func(w io.Writer) error {
			if h, ok := w.(ColdFileHint); ok && cold {
				h.ColdFile()
			}
			return buffered(w)
		})
	}
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	return f.storage.UpsertFile(ctx, p, buf.Bytes())
}

// saveBuffer is the buffer between a streaming encoder and the storage.
const saveBuffer = 1 << 20

// getWriter returns a buffered writer of saveBuffer bytes to w, from the
// pool (each commit would otherwise leave a megabyte of garbage).
func (f *files) getWriter(w io.Writer) *bufio.Writer {
	if bw, ok := f.bufs.Get().(*bufio.Writer); ok {
		bw.Reset(w)
		return bw
	}
	return bufio.NewWriterSize(w, saveBuffer)
}

// putWriter gives bw back to the pool, holding no writer.
func (f *files) putWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	f.bufs.Put(bw)
}

// writeGroup stores every file: through the storage's GroupWriter, one
// durability barrier for all, when it has one; else with up to
// maxFileWrites UpsertFile calls at once. When it returns nil every file
// is stored. On error any subset may have been written.
func (f *files) writeGroup(ctx context.Context, group []FileWrite) error {
	if len(group) == 0 {
		return nil
	}
	if f.grouper != nil {
		return f.grouper.WriteFiles(ctx, group)
	}
	return writeEach(ctx, f.storage, group)
}

// batchesRanges reports whether rf reads many parts with one call
// (RangeBatcher), which the re-rank then hands all of its rows at once.
func batchesRanges(rf RangeFile) bool {
	_, ok := rf.(RangeBatcher)
	return ok
}

// readRanges reads every part of rf: with one call where the file reads
// many parts at once (RangeBatcher), else one ReadRange a part.
func readRanges(ctx context.Context, rf RangeFile, parts []FilePart) error {
	if rb, ok := rf.(RangeBatcher); ok {
		return rb.ReadRanges(ctx, parts)
	}
	for _, p := range parts {
		if err := rf.ReadRange(ctx, p.P, p.Off); err != nil {
			return err
		}
	}
	return nil
}
