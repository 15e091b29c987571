// Node's crypto for Vectra's browser bundle: Vectra 0.15's
// LocalDocumentIndex.upsertDocument hashes each document with
// createHash('sha256'), which a browser lacks. sha.js gives it, as a
// bundler's Node polyfill (crypto-browserify) does.
const shaJS = require("sha.js");
module.exports = { createHash: (algorithm) => shaJS(algorithm) };
