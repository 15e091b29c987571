package codectest_test

import (
	"io"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// encoderBreakages are streaming encoders that break one rule each.
func encoderBreakages() []breakage {
	return []breakage{
		{name: "a stream encoder that drops the last item", codec: droppingEncoder{},
			rule: "EncodeIndexTo writes the bytes SerializeIndex returns, empty, small and large"},
		{name: "a stream encoder that writes what it cannot encode", codec: lenientEncoder{},
			rule: "EncodeIndexTo fails where SerializeIndex fails, naming the first bad item"},
		{name: "a stream encoder that drops its writer's error", codec: swallowingEncoder{},
			rule: "EncodeIndexTo returns a failing writer's error"},
	}
}

// droppingEncoder encodes every item but the last.
type droppingEncoder struct{ reference.Codec }

func (c droppingEncoder) EncodeIndexTo(w io.Writer, src core.IndexSource) error {
	d := src.Data()
	if len(d.Items) > 0 {
		d.Items = d.Items[:len(d.Items)-1]
	}
	b, err := c.SerializeIndex(d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// lenientEncoder writes nothing and reports no error when the index
// cannot be encoded.
type lenientEncoder struct{ reference.Codec }

func (c lenientEncoder) EncodeIndexTo(w io.Writer, src core.IndexSource) error {
	b, err := c.SerializeIndex(src.Data())
	if err != nil {
		return nil
	}
	_, err = w.Write(b)
	return err
}

// swallowingEncoder ignores its writer's error.
type swallowingEncoder struct{ reference.Codec }

func (c swallowingEncoder) EncodeIndexTo(w io.Writer, src core.IndexSource) error {
	b, err := c.SerializeIndex(src.Data())
	if err != nil {
		return err
	}
	w.Write(b)
	return nil
}
