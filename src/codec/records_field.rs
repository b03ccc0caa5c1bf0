//! [`Records`], the value of a `records` field: the bytes of log entries, or with the
//! `in-place` feature a source that writes them where the field goes in an encoder's output
//! (`WriteRecords`). Public as [`crate::records::Records`] and `crate::records::WriteRecords`.

use core::fmt;
#[cfg(feature = "in-place")]
use core::panic::RefUnwindSafe;

#[cfg(feature = "in-place")]
use crate::error::EncodeError;

/// A `records` field's bytes written in place: a value that knows how long its encoding is and
/// writes it into the encoder's output, where the field goes, so that nothing is built in a
/// buffer of its own and copied. [`Records::in_place`] puts one in a message;
/// [`NewBatch`](crate::records::NewBatch) is the one for a v2 batch of new records. With the
/// `in-place` feature.
///
/// An encode asks [`WriteRecords::encoded_len`] first (the field's length prefix comes before
/// its bytes), then gives [`WriteRecords::write`] exactly that many bytes of its output. A write
/// that fails, or reports another length, makes the encode fail with
/// [`EncodeError::RecordsMiswritten`]: no frame is returned whose bytes the source did not
/// write. A sizing of the whole message ([`Encode::encoded_len`](super::Encode::encoded_len),
/// `frame::request_len`) asks only for the length.
///
/// It is `Sync` and `RefUnwindSafe`, so that a message holding one is `Send`, `Sync` and
/// unwind-safe, as one holding bytes is.
#[cfg(feature = "in-place")]
pub trait WriteRecords: Sync + RefUnwindSafe {
    /// The exact number of bytes [`WriteRecords::write`] writes.
    ///
    /// # Errors
    ///
    /// Whatever makes the bytes impossible to write, such as `LengthOverflow`: the encode fails
    /// with it.
    fn encoded_len(&self) -> Result<usize, EncodeError>;

    /// Writes the bytes at the start of `out` and returns how many it wrote. An encode gives it
    /// exactly [`WriteRecords::encoded_len`] bytes, and refuses any other result than that
    /// length.
    ///
    /// # Errors
    ///
    /// As [`WriteRecords::encoded_len`], and `BufferTooSmall` when `out` is shorter than the
    /// bytes (which an encode never lets happen).
    fn write(&self, out: &mut [u8]) -> Result<usize, EncodeError>;
}

/// The value of a `records` field: log entries, read (a borrowed slice and where it was found)
/// or, with the `in-place` feature, to be written in place by a `WriteRecords` source.
///
/// Decoding always gives bytes. A value made by `Records::in_place` has no bytes until an encode
/// writes them into its output: its reading methods ([`Records::as_bytes`],
/// [`Records::batches`](crate::records::Records::batches), [`Records::len`], ...) see an empty
/// field, and `Records::source` gives the source.
///
/// Two values of bytes are equal when their bytes are (where they were found is not compared),
/// and hash by their bytes; two written in place are equal when they write from the same source
/// (the same value, at the same address); one of each is never equal to the other.
#[derive(Clone, Copy)]
pub struct Records<'a> {
    repr: Repr<'a>,
}

/// With `in-place`, one byte, [`Mark`], tells bytes from a source and, in an `Option<Records>`,
/// from `None`, so that an encoder's test for bytes to copy is one comparison, as its test for
/// `None` was. Without it, a slice and its offset, as before the feature.
#[derive(Clone, Copy)]
enum Repr<'a> {
    /// Encoded entries, found at absolute offset `base` of the buffer a decode was given.
    Bytes {
        bytes: &'a [u8],
        base: usize,
        #[cfg(feature = "in-place")]
        #[allow(dead_code, reason = "its value is the layout's, never read")]
        mark: Mark,
    },
    /// Written in place by the source.
    #[cfg(feature = "in-place")]
    InPlace(&'a dyn WriteRecords),
}

/// A byte that is always 0 in [`Repr::Bytes`]: its other values are where the layout keeps the
/// tag of [`Repr::InPlace`] and the `None` of an `Option<Records>`.
#[cfg(feature = "in-place")]
#[derive(Clone, Copy)]
#[repr(u8)]
enum Mark {
    Bytes = 0,
}

impl Default for Records<'_> {
    fn default() -> Self {
        Self::new(&[])
    }
}

impl<'a> Records<'a> {
    /// Wraps encoded entries.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self::with_offset(bytes, 0)
    }

    /// Wraps encoded entries found at absolute offset `offset` of a larger buffer, so that
    /// errors and positions count from that buffer's start. Decoding a message does this.
    #[must_use]
    pub const fn with_offset(bytes: &'a [u8], offset: usize) -> Self {
        Self {
            repr: Repr::Bytes {
                bytes,
                base: offset,
                #[cfg(feature = "in-place")]
                mark: Mark::Bytes,
            },
        }
    }

    /// Entries that `source` writes in place when the message holding them is encoded: its
    /// bytes go straight into the encoder's output, with no buffer of their own and no copy.
    ///
    /// ```
    /// use kwire::codec::Encode;
    /// use kwire::messages::produce_request::PartitionProduceData;
    /// use kwire::records::{BatchBuilder, NewBatch, NewRecord, Records};
    ///
    /// let records = [NewRecord::new(b"hello").with_key(b"k")];
    /// let batch = NewBatch::new(BatchBuilder::new(), &records);
    /// let partition = PartitionProduceData::default().with_records(Some(Records::in_place(&batch)));
    /// let mut out = [0u8; 128];
    /// let n = partition.encode(9, &mut out)?;
    ///
    /// // The bytes of a batch written first, then copied.
    /// let mut field = [0u8; 96];
    /// let len = BatchBuilder::new().write(&records, &mut field)?;
    /// let copied = PartitionProduceData::default().with_records(Some(Records::new(&field[..len])));
    /// let mut expected = [0u8; 128];
    /// assert_eq!(copied.encode(9, &mut expected)?, n);
    /// assert_eq!(out[..n], expected[..n]);
    /// # Ok::<(), kwire::EncodeError>(())
    /// ```
    #[cfg(feature = "in-place")]
    #[must_use]
    pub const fn in_place(source: &'a dyn WriteRecords) -> Self {
        Self {
            repr: Repr::InPlace(source),
        }
    }

    /// The source of entries written in place ([`Records::in_place`]); `None` for bytes.
    #[cfg(feature = "in-place")]
    #[must_use]
    pub const fn source(&self) -> Option<&'a dyn WriteRecords> {
        match self.repr {
            Repr::Bytes { .. } => None,
            Repr::InPlace(source) => Some(source),
        }
    }

    /// The encoded entries, `None` for entries written in place: what an encoder copies.
    #[cfg(feature = "in-place")]
    #[inline(always)]
    pub(crate) const fn read_bytes(&self) -> Option<&'a [u8]> {
        match self.repr {
            Repr::Bytes { bytes, .. } => Some(bytes),
            Repr::InPlace(_) => None,
        }
    }

    /// The encoded entries; empty for entries written in place, which have no bytes until an
    /// encode writes them.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        match self.repr {
            Repr::Bytes { bytes, .. } => bytes,
            #[cfg(feature = "in-place")]
            Repr::InPlace(_) => &[],
        }
    }

    /// Absolute offset of the first byte; 0 for entries written in place.
    #[must_use]
    pub const fn offset(&self) -> usize {
        match self.repr {
            Repr::Bytes { base, .. } => base,
            #[cfg(feature = "in-place")]
            Repr::InPlace(_) => 0,
        }
    }

    /// The length in bytes ([`Records::as_bytes`]'s: 0 for entries written in place, whose
    /// length is their source's `WriteRecords::encoded_len`).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// True when there are no bytes (as for [`Records::len`], also for entries written in
    /// place).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }
}

impl<'a> From<&'a [u8]> for Records<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Self::new(bytes)
    }
}

impl PartialEq for Records<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.repr, other.repr) {
            (Repr::Bytes { bytes: a, .. }, Repr::Bytes { bytes: b, .. }) => a == b,
            #[cfg(feature = "in-place")]
            (Repr::InPlace(a), Repr::InPlace(b)) => core::ptr::addr_eq(a, b),
            #[cfg(feature = "in-place")]
            _ => false,
        }
    }
}

impl Eq for Records<'_> {}

impl core::hash::Hash for Records<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        match self.repr {
            Repr::Bytes { bytes, .. } => bytes.hash(state),
            #[cfg(feature = "in-place")]
            Repr::InPlace(source) => core::ptr::from_ref(source).cast::<()>().hash(state),
        }
    }
}

impl fmt::Debug for Records<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.repr {
            Repr::Bytes { bytes, .. } => write!(f, "Records({} bytes)", bytes.len()),
            #[cfg(feature = "in-place")]
            Repr::InPlace(source) => match source.encoded_len() {
                Ok(n) => write!(f, "Records(in place, {n} bytes)"),
                Err(_) => f.write_str("Records(in place)"),
            },
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Records<'_> {
    fn format(&self, f: defmt::Formatter<'_>) {
        match self.repr {
            Repr::Bytes { bytes, .. } => defmt::write!(f, "Records({=usize} bytes)", bytes.len()),
            #[cfg(feature = "in-place")]
            Repr::InPlace(_) => defmt::write!(f, "Records(in place)"),
        }
    }
}

/// Without `in-place`, a slice and its offset; with it, a word more. An `Option` of it is no
/// larger either way.
#[cfg(test)]
#[test]
fn layout() {
    let words = if cfg!(feature = "in-place") { 4 } else { 3 };
    assert_eq!(size_of::<Records<'_>>(), words * size_of::<usize>());
    assert_eq!(size_of::<Option<Records<'_>>>(), words * size_of::<usize>());
}

#[cfg(all(test, feature = "in-place"))]
mod tests {
    use std::format;

    use super::*;

    struct Fixed;

    impl WriteRecords for Fixed {
        fn encoded_len(&self) -> Result<usize, EncodeError> {
            Ok(3)
        }

        fn write(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
            out.fill(7);
            Ok(out.len())
        }
    }

    #[test]
    fn written_in_place_reads_as_empty_and_equals_only_its_source() {
        let (a, b) = (Fixed, Fixed);
        let r = Records::in_place(&a);
        assert!(r.as_bytes().is_empty() && r.is_empty() && r.offset() == 0);
        assert_eq!(r.len(), 0);
        assert!(r.source().is_some());
        assert!(Records::new(b"x").source().is_none());
        assert_eq!(r, Records::in_place(&a));
        assert_ne!(r, Records::in_place(&b));
        assert_ne!(r, Records::new(b""));
        assert_eq!(Records::new(b"ab"), Records::with_offset(b"ab", 9));
        assert_eq!(format!("{r:?}"), "Records(in place, 3 bytes)");
        assert_eq!(format!("{:?}", Records::new(b"ab")), "Records(2 bytes)");
    }

    /// A message holding a source is as `Send`, `Sync` and unwind-safe as one holding bytes.
    #[test]
    fn auto_traits_as_for_bytes() {
        fn check<T: Send + Sync + Unpin + core::panic::UnwindSafe + RefUnwindSafe>() {}
        check::<Records<'static>>();
    }
}
