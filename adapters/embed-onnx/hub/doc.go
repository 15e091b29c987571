// Package hub fetches models by name from the Hugging Face hub, or a
// mirror of it, into a local models folder, once: the files a BERT-style
// ONNX sentence model needs (onnx/model*.onnx for the dtype asked,
// tokenizer.json or vocab.txt, tokenizer_config.json, config.json and the
// sentence-transformers pooling config), as transformers.js downloads
// them for Vectra's TransformersEmbeddings.
//
// # Names and folders
//
// A model is named by its hub id, "owner/name" (or a bare "name"), with an
// optional "@revision" (a branch, tag or commit; "main" when absent). It is
// kept in <folder>/owner/name (<folder>/owner/name@revision for another
// revision), where the folder is the one given to [New], else
// $FOLIO_MODELS_DIR, else <user cache folder>/folio/models. A folder
// filled by hand in that layout is used as it is.
//
// # What a pull does
//
// [Hub.Pull] makes no request when the model's folder already holds the
// files for the dtype. Otherwise it asks the hub for each file's size,
// checksum and commit (a HEAD of the resolve URL), downloads what is
// missing over HTTP(S), following the hub's redirects to its file hosts,
// and resumes a download cut short. Every file is checked against the
// hub's size and checksum (the SHA-256 of large files, the git blob hash
// of small ones) before it is moved into place; until then it lives under
// .incomplete/ in the model's folder, so a killed download never leaves a
// file that looks complete. All files of a pull come from one commit, and
// the folder's .folio-pull.json records the id, revision, commit and each
// file's size and checksum. Two processes pulling the same model take
// turns on a lock file in its folder; the second finds the files in place
// and downloads nothing.
//
// # The environment
//
// Options left empty are read from the environment a Hugging Face user
// already has: $HF_ENDPOINT (a mirror; https://huggingface.co by
// default), $HF_TOKEN (sent to the endpoint only, never logged, never
// written anywhere) and $HF_HUB_OFFLINE (refuse the network and use the
// folder alone). Proxies come from $HTTPS_PROXY, $HTTP_PROXY and $NO_PROXY
// unless Options.Client is given.
//
// # Errors
//
// Errors wrap [ErrNotFound] (with fs.ErrNotExist: no such model or file on
// the hub, or, offline, not in the folder), [ErrOffline] (the network was
// needed but refused), [ErrChecksum] (with core.ErrCorrupt: a file's bytes
// are not the hub's), [ErrTooLarge], [ErrUnauthorized] (a gated or
// private model: set HF_TOKEN) or core.ErrInvalidArgument (a model id or
// revision that is not one, such as one with ".."). A deadline or a
// stalled transfer ends with context.DeadlineExceeded.
//
// # Concurrency
//
// A Hub is safe for concurrent use; pulls of one model, from one process
// or several, are serialised by the model folder's lock.
package hub
