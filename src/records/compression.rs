//! Compression of record payloads, supplied by the caller.
