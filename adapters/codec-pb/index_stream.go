package codecpb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ core.IndexStreamDecoder = (*ProtobufCodec)(nil)

// DecodeIndexFrom decodes an IndexData message read from r, as
// DeserializeIndexArena decodes its bytes (the same items, arena and
// errors), holding at most one item's bytes at a time: the vectors go
// straight from the read buffer into the arena. With size (the message's
// length) known, the arena is reserved once, at the most vectors that many
// bytes can hold; the part that is never written is never touched, so it
// costs address space, not memory. With size -1 the message is read whole
// and decoded by DeserializeIndexArena.
//
// Items are decoded one after another as they arrive, on one goroutine;
// DeserializeIndexArena, given the whole message, decodes on all cores.
func (c *ProtobufCodec) DecodeIndexFrom(r io.Reader, size int64) (core.IndexData, []float32, error) {
	const op = "decode index"
	if size < 0 {
		b, err := io.ReadAll(r)
		if err != nil {
			return core.IndexData{}, nil, fmt.Errorf("codecpb: %s: %w", op, err)
		}
		return c.DeserializeIndexArena(b)
	}
	sd := streamDecoder{r: bufio.NewReaderSize(r, int(min(streamBuffer, size+16))), left: size}
	data, arena, err := sd.decode(size)
	if err != nil {
		if sd.readErr != nil {
			return core.IndexData{}, nil, fmt.Errorf("codecpb: %s: %w", op, sd.readErr)
		}
		return core.IndexData{}, nil, corrupt(op, err)
	}
	return data, arena, nil
}

// streamBuffer is the read buffer of DecodeIndexFrom.
const streamBuffer = 1 << 20

// streamDecoder reads the top level of an IndexData message field by
// field.
type streamDecoder struct {
	r       *bufio.Reader
	left    int64 // bytes of the message not read yet (size says)
	readErr error // an error of the reader, as opposed to bad bytes
	buf     []byte
}

// errTruncated: the message ends inside a field.
var errTruncated = errors.New("unexpected end of message")

func (sd *streamDecoder) decode(size int64) (core.IndexData, []float32, error) {
	data := core.IndexData{MetadataConfig: core.MetadataConfig{Indexed: []string{}}}
	var (
		items  []core.IndexItem
		arena  []float32 // reserved for size/4 components; rows fill it in order
		dim    = -1      // the first item's vector length
		pos    int       // components placed in the arena
		inRows int       // items whose vectors are arena rows
		mixed  bool      // an item's vector length differs from the first's
		dec    = indexDecoder{in: newInterner()}
	)
	for {
		num, typ, err := sd.tag()
		if err == io.EOF {
			break
		}
		if err != nil {
			return core.IndexData{}, nil, err
		}
		switch {
		case num == fieldIndexVersion && typ == protowire.VarintType:
			u, err := sd.varint()
			if err != nil {
				return core.IndexData{}, nil, err
			}
			data.Version = int(uint32(u))
		case num == fieldIndexMetadataConfig && typ == protowire.BytesType:
			b, err := sd.bytes()
			if err != nil {
				return core.IndexData{}, nil, err
			}
			if data.MetadataConfig.Indexed, err = appendIndexed(data.MetadataConfig.Indexed, b); err != nil {
				return core.IndexData{}, nil, fmt.Errorf("metadata_config: %w", err)
			}
		case num == fieldIndexItems && typ == protowire.BytesType:
			b, err := sd.bytes()
			if err != nil {
				return core.IndexData{}, nil, err
			}
			i := len(items)
			k, err := vectorLength(b)
			if err != nil {
				return core.IndexData{}, nil, fmt.Errorf("items[%d]: %w", i, err)
			}
			if items == nil {
				// Items are alike in size: room for as many as the
				// message would hold of this one (counted as 64 bytes at
				// least, to bound the guess).
				items = make([]core.IndexItem, 0, size/int64(max(len(b), 64))+1)
				dim = k
				// Room for every float the message could hold, and an
				// eighth more for the inserts after an open (core.ArenaRoom,
				// counted in floats here).
				arena = make([]float32, size/4, core.ArenaRoom(int(size/4)))
			}
			var it core.IndexItem
			if pos+k > len(arena) {
				// Never: a component takes at least 4 of the size's bytes.
				return core.IndexData{}, nil, fmt.Errorf("items[%d]: more vector components than %d bytes hold", i, size)
			}
			if !mixed && k == dim {
				dec.arena = arena
				it, err = dec.item(b, pos, pos+k)
				pos += k
				inRows++
			} else {
				// Another length: from here on each vector has its own
				// allocation, and no arena is returned.
				mixed = true
				dec.arena = make([]float32, k)
				it, err = dec.item(b, 0, k)
			}
			if err != nil {
				return core.IndexData{}, nil, fmt.Errorf("items[%d]: %w", i, err)
			}
			items = append(items, it)
		default:
			if err := sd.skip(num, typ, 0); err != nil {
				return core.IndexData{}, nil, err
			}
		}
	}
	if items == nil {
		data.Items = []core.IndexItem{}
		return data, []float32{}, nil
	}
	data.Items = slices.Clip(items)
	if mixed {
		return data, nil, nil
	}
	return data, arena[:pos], nil // room to grow, the engine's (core.ArenaRoom)
}

// tag reads a field's tag; io.EOF at the clean end of the message.
func (sd *streamDecoder) tag() (protowire.Number, protowire.Type, error) {
	if sd.left == 0 {
		// The size said so; a longer stream is a file that grew.
		if _, err := sd.r.ReadByte(); err == nil {
			return 0, 0, errors.New("the message is longer than its size")
		}
		return 0, 0, io.EOF
	}
	v, err := sd.varint()
	if err != nil {
		return 0, 0, err
	}
	num, typ := protowire.DecodeTag(v)
	if num < protowire.MinValidNumber { // as protowire.ConsumeTag checks
		return 0, 0, errors.New("invalid field number")
	}
	return num, typ, nil
}

// varint reads a varint, as protowire.ConsumeVarint decodes one.
func (sd *streamDecoder) varint() (uint64, error) {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if sd.left <= 0 {
			return 0, errTruncated
		}
		c, err := sd.r.ReadByte()
		if err != nil {
			return 0, sd.fail(err)
		}
		sd.left--
		if i == binary.MaxVarintLen64-1 && c > 1 {
			return 0, errVarintOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errVarintOverflow
}

// errVarintOverflow: a varint longer than 64 bits.
var errVarintOverflow = errors.New("variable length integer overflow")

// bytes reads a length-delimited payload into the decoder's buffer, valid
// until the next call.
func (sd *streamDecoder) bytes() ([]byte, error) {
	n, err := sd.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(sd.left) {
		return nil, errTruncated
	}
	sd.buf = slices.Grow(sd.buf[:0], int(n))[:n]
	if _, err := io.ReadFull(sd.r, sd.buf); err != nil {
		return nil, sd.fail(err)
	}
	sd.left -= int64(n)
	return sd.buf, nil
}

// discard skips n bytes of the message.
func (sd *streamDecoder) discard(n uint64) error {
	if n > uint64(sd.left) {
		return errTruncated
	}
	if _, err := sd.r.Discard(int(n)); err != nil {
		return sd.fail(err)
	}
	sd.left -= int64(n)
	return nil
}

// maxGroupDepth bounds the nesting of groups skipped, as protowire does.
const maxGroupDepth = 10_000

// skip skips the value of an unknown field (whole groups included).
func (sd *streamDecoder) skip(num protowire.Number, typ protowire.Type, depth int) error {
	switch typ {
	case protowire.VarintType:
		_, err := sd.varint()
		return err
	case protowire.Fixed32Type:
		return sd.discard(4)
	case protowire.Fixed64Type:
		return sd.discard(8)
	case protowire.BytesType:
		n, err := sd.varint()
		if err != nil {
			return err
		}
		return sd.discard(n)
	case protowire.StartGroupType:
		if depth >= maxGroupDepth {
			return errors.New("groups nested too deep")
		}
		for {
			n, t, err := sd.tag()
			if err == io.EOF {
				return errTruncated
			}
			if err != nil {
				return err
			}
			if t == protowire.EndGroupType {
				if n != num {
					return errors.New("mismatching end group marker")
				}
				return nil
			}
			if err := sd.skip(n, t, depth+1); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("field %d: wire type %d: %w", num, typ, errBadWireType)
}

// errBadWireType: a reserved wire type, or an end-group marker with no
// group.
var errBadWireType = errors.New("invalid wire type")

// fail classifies an error met while reading: the end of the stream
// inside a field is a truncated message (corrupt); anything else is the
// reader's own error, kept to be returned as it is.
func (sd *streamDecoder) fail(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errTruncated) {
		return errTruncated
	}
	if sd.readErr == nil {
		sd.readErr = err
	}
	return err
}
