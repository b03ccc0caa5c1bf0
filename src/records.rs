//! The `records` fields of Produce, Fetch, ShareFetch and FetchSnapshot.

/// The bytes of a `records` field: a concatenation of record batches, kept as a borrowed slice.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Records<'a> {
    bytes: &'a [u8],
}

impl<'a> Records<'a> {
    /// Wraps the encoded batches.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// The encoded batches.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The length in bytes.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True when there are no bytes.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl<'a> From<&'a [u8]> for Records<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Self::new(bytes)
    }
}

impl core::fmt::Debug for Records<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Records({} bytes)", self.bytes.len())
    }
}
