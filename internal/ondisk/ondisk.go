// Package ondisk holds the codes of the on-disk formats that both the library and kvsh decode:
// the redo payload of a WAL record and the keys and values of the bucket catalog. The layouts
// are specified in docs/FORMAT.md; changing a code here changes the format.
package ondisk

// Redo payload of a WAL record: one committed transaction, replayed operation by operation.
//
//	| Size    | Field                                         |
//	| 1       | record type: RedoTxn                          |
//	| ...     | operations until the end of the payload       |
//
// Operation: 1 byte op, uvarint length, bytes (key or bucket name), and for a put: uvarint value
// length, value bytes. Puts and deletes apply to the key space the last select chose; each
// record starts with the default key space selected.
const (
	RedoTxn          = 1 // the record type of a transaction
	RedoPut          = 1
	RedoDelete       = 2
	RedoSelect       = 3 // select the bucket named (empty name: the default key space)
	RedoCreateBucket = 4
	RedoDeleteBucket = 5
)

// Bucket catalog: a B+tree of its own whose root the meta page holds.
//
//	| key                       | value                                                       |
//	| CatalogBucket + name      | 1 byte BucketKind, 8 bytes root page id (0: empty)          |
//	| CatalogDropStack (alone)  | page ids (8 bytes each) of extents still to free, top last  |
const (
	CatalogBucket    = 0x01 // first byte of a bucket's key
	CatalogDropStack = 0x02 // the key of the drop stack of deleted buckets' extents
	BucketKind       = 1    // first byte of a bucket's value
	BucketEntrySize  = 9    // length of a bucket's value
)
