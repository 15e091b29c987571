package folio

// Version is Folio's version, shared by the Go modules, the folio command
// (when built from a checkout rather than a tagged module) and the
// JavaScript package (make js-package writes it into package.json).
const Version = "0.1.0"
