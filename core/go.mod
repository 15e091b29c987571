module github.com/foliovec/folio/core

go 1.26
