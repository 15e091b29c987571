//go:build js

package core

import "context"

// mapSegment maps nothing in a browser, where no storage maps files: the
// caller reads every segment, and folio.wasm carries no mapping code.
func (sl *segLayout) mapSegment(context.Context, FileMapper, string, *segArena, *loaded) (segment, bool, error) {
	return segment{}, false, nil
}
