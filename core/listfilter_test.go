package core

import (
	"errors"
	"testing"
)

func TestListFilesFilterSelects(t *testing.T) {
	tests := []struct {
		filter         ListFilesFilter
		files, folders bool
	}{
		{ListAll, true, true},
		{"", true, true},
		{ListFilesOnly, true, false},
		{ListFoldersOnly, false, true},
	}
	for _, tt := range tests {
		files, folders, err := tt.filter.Selects()
		if files != tt.files || folders != tt.folders || err != nil {
			t.Errorf("%q.Selects() = %v, %v, %v; want %v, %v, nil", tt.filter, files, folders, err, tt.files, tt.folders)
		}
	}
	if _, _, err := ListFilesFilter("dirs").Selects(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf(`"dirs".Selects() = %v, want ErrInvalidArgument`, err)
	}
}
