// Command serve serves a folder over HTTP on 127.0.0.1, for the browser
// example: make browser-demo builds the page into a folder and runs
//
//	go run ./examples/browser/serve -dir .cache/browser-demo
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	dir := flag.String("dir", ".", "folder to serve")
	flag.Parse()
	log.Printf("serving %s on http://%s/", *dir, *addr)
	log.Fatal(http.ListenAndServe(*addr, noCache(http.FileServer(http.Dir(*dir)))))
}

// noCache makes the browser ask again for every file, so a rebuilt
// folio.wasm is always the one loaded.
func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}
