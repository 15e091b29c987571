package storageblob

// The drivers Open knows, by URL scheme: s3:// (AWS S3 and S3-compatible
// servers), gs:// (Google Cloud Storage), azblob:// (Azure Blob Storage),
// file:// (a local folder) and mem:// (memory, for tests).
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)
