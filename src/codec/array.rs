//! [`Array`]: a validated view over wire bytes, or a caller's slice.

use core::fmt;
use core::marker::PhantomData;

use crate::error::EncodeError;

use super::{DroppedField, Encode, Failed, FastReader, LengthPrefix, Reader, Writer};

/// A type that can be an array element: the primitive element types (`i8`, `i16`, `i32`,
/// `i64`, `u16`, `u32`, `bool`, `f64`, [`Uuid`](super::Uuid), `&str`) and every generated
/// struct.
///
/// The trait is sealed: what an array does with its elements (validating, iterating, sizing and
/// writing them) belongs to the crate, and other types cannot be elements. Generic code names it
/// as a bound:
///
/// ```
/// use kwire::codec::{Array, Element};
///
/// fn count<'a, T: Element<'a>>(array: &Array<'a, T>) -> usize {
///     array.iter().count()
/// }
///
/// assert_eq!(count(&Array::from(&[1i32, 2, 3][..])), 3);
/// ```
///
/// A type of one's own cannot be an element:
///
/// ```compile_fail
/// use kwire::codec::Element;
///
/// #[derive(Clone, Copy)]
/// struct Mine(i32);
///
/// impl<'a> Element<'a> for Mine {}
/// ```
pub trait Element<'a>: ElementCodec<'a> {}

impl<'a, T: ElementCodec<'a>> Element<'a> for T {}

/// How arrays read, walk, size and write their elements: the sealed part of [`Element`],
/// implemented inside the crate only (the module that declares it is private).
pub trait ElementCodec<'a>: Copy {
    /// The encoded size of every element when it does not depend on the value, version or
    /// flexibility (the fixed-width primitives); `None` for everything else.
    ///
    /// Arrays of such elements are validated with one bounds check instead of one read per
    /// element.
    const WIRE_SIZE: Option<usize> = None;

    /// True when [`ElementCodec::read_fast`] may refuse an element that
    /// [`ElementCodec::read_element`] accepts, leaving it to [`ElementCodec::read_fast_sections`]:
    /// generated structs with tagged fields of their own, whose non-empty sections are read out
    /// of line.
    const FAST_READ_REFUSES: bool = false;

    /// Reads one element at `version`; `flexible` selects compact lengths for strings.
    ///
    /// # Errors
    ///
    /// [`Failed`], with the [`DecodeError`](crate::DecodeError) of the element's fields in `r`.
    fn read_element(
        r: &mut Reader<'a>,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<Self, Failed>;

    /// Advances over one element at `version` without building it, checking what
    /// [`ElementCodec::read_element`] checks (generated structs walk field by field; the default
    /// takes the element). Over validated bytes it only steps.
    ///
    /// It may refuse what `read_element` accepts (generated structs leave a non-empty tagged
    /// section of unvalidated bytes to `read_element`), never the reverse: a caller that needs the
    /// error reads the element from the same place.
    #[inline]
    fn walk(w: &mut FastReader<'a>, version: i16, flexible: bool) -> Option<()> {
        Self::read_fast(w, version, flexible).map(drop)
    }

    /// Walks `count` elements (see [`ElementCodec::walk`]) from `w` and returns the bytes after
    /// them: the loop of validating an array. Generated structs run one copy of the loop per
    /// range of versions that encode alike, with the version tests of each copy folded away.
    #[inline(always)]
    fn walk_many(
        mut w: FastReader<'a>,
        count: usize,
        version: i16,
        flexible: bool,
    ) -> Option<&'a [u8]> {
        for _ in 0..count {
            Self::walk(&mut w, version, flexible)?;
        }
        Some(w.rest())
    }

    /// Reads one element at `version` through a fast reader: what iterating a decoded array runs.
    /// `None` wherever [`ElementCodec::read_element`] would fail; where
    /// [`ElementCodec::FAST_READ_REFUSES`] holds, it may also refuse what `read_element` accepts
    /// (generated structs leave a non-empty tagged section of their own fields to it), and the
    /// caller then reads the element from the same place with
    /// [`ElementCodec::read_fast_sections`].
    ///
    /// The default reads the element through a [`Reader`].
    #[inline]
    fn read_fast(w: &mut FastReader<'a>, version: i16, flexible: bool) -> Option<Self> {
        w.read_with(|r| Self::read_element(r, version, flexible, ""))
    }

    /// Reads one element through a fast reader where [`ElementCodec::read_fast`] refused it:
    /// a generated struct's `read_fast` leaves a non-empty tagged section of its own fields,
    /// which keeps the read inlined into the array loops small, to this read. `None` only where
    /// `read_element` would fail.
    ///
    /// It takes the fast reader by value and returns the element with the bytes after it, so
    /// that the iterator's fast reader, whose address is never taken, stays in registers. The
    /// default reads the element through a [`Reader`].
    #[inline]
    fn read_fast_sections(
        mut w: FastReader<'a>,
        version: i16,
        flexible: bool,
    ) -> Option<(Self, &'a [u8])> {
        let v = w.read_with(|r| Self::read_element(r, version, flexible, ""))?;
        Some((v, w.rest()))
    }

    /// Encoded size of this element at `version`.
    ///
    /// # Errors
    ///
    /// Any [`EncodeError`] of the element's fields.
    fn element_len(
        &self,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<usize, EncodeError>;

    /// Writes this element (after [`ElementCodec::element_len`] succeeded).
    fn write_element(&self, w: &mut Writer<'_>, version: i16, flexible: bool);

    /// True when an element read at `read` (`read_flexible`) has the same bytes at `version`
    /// (`flexible`), so that a decoded array is written again by copying it. Generated structs
    /// follow their message's version alone, and compare it as the build compiles it (see
    /// `Built::pin`): in a build of one version the test is constant.
    #[inline(always)]
    fn same_encoding(read: i16, read_flexible: bool, version: i16, flexible: bool) -> bool {
        read == version && read_flexible == flexible
    }

    /// Sums [`ElementCodec::element_len`] over `elements`: the loop of sizing an array. Generated
    /// structs run one copy of the loop per range of versions that encode alike, as
    /// [`ElementCodec::walk_many`] does.
    ///
    /// # Errors
    ///
    /// The first [`EncodeError`] of an element.
    #[inline(always)]
    fn len_many(
        elements: &[Self],
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        let mut total = 0usize;
        for e in elements {
            total = total.saturating_add(e.element_len(version, flexible, path)?);
        }
        Ok(total)
    }

    /// Writes a non-null array of `elements`: the length prefix, then
    /// [`ElementCodec::write_element`] on each. The fixed-width primitives reserve the prefix and
    /// the elements at once and fill them in one loop; generated structs run one copy of the loop
    /// per range of versions.
    #[inline]
    fn write_array(elements: &[Self], w: &mut Writer<'_>, version: i16, flexible: bool) {
        w.len(elements.len(), LengthPrefix::bytes(flexible));
        for e in elements {
            e.write_element(w, version, flexible);
        }
    }
}

/// A validated view over the elements of an array as they appear on the wire.
///
/// Built by decoding, which reads every element once: all errors surface then, and iteration
/// afterwards cannot fail. The view remembers the version it was read at, so that encoding it
/// again at that version copies its bytes verbatim.
pub struct ArrayView<'a, T> {
    bytes: &'a [u8],
    count: u32,
    offset: usize,
    version: i16,
    flexible: bool,
    _element: PhantomData<T>,
}

impl<T> Clone for ArrayView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ArrayView<'_, T> {}

impl<'a, T: Element<'a>> ArrayView<'a, T> {
    /// Reads and validates `count` elements at `version`.
    ///
    /// # Errors
    ///
    /// [`Failed`], with the first element error in `r`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn read(
        r: &mut Reader<'a>,
        count: usize,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<Self, Failed> {
        // The elements are checked through a fast reader, which builds nothing (fixed-width ones
        // with one bounds check); only where it refuses are they read one by one, for the
        // precise error. Without the `perf` feature only fixed-width elements are walked, and
        // the walking code is left out.
        if cfg!(feature = "perf") || T::WIRE_SIZE.is_some() {
            let mut w = FastReader::at(r);
            if let Some(view) = Self::read_fast(&mut w, count, version, flexible) {
                r.advance_to(&w);
                return Ok(view);
            }
        }
        // Fixed-width elements fail only where the input ends: the error is the one a read of
        // the element cut short gives, found without reading those before it.
        if let Some(size) = T::WIRE_SIZE {
            return Err(r.fail_fixed_elements(size, path));
        }
        let offset = r.offset();
        let bytes = Self::read_each(r, count, version, flexible, path)?;
        Ok(Self::new(bytes, count, offset, version, flexible))
    }

    /// The view over `bytes`, which hold `count` validated elements and start at absolute
    /// offset `offset`.
    #[inline(always)]
    fn new(bytes: &'a [u8], count: usize, offset: usize, version: i16, flexible: bool) -> Self {
        Self {
            bytes,
            // The count was bounded by the input length, which is below 2^32 elements in practice;
            // saturate rather than fail on a 64-bit input larger than that.
            count: u32::try_from(count).unwrap_or(u32::MAX),
            offset,
            version,
            flexible,
            _element: PhantomData,
        }
    }

    /// Validates `count` elements at `version` through a fast reader: what [`ArrayView::read`]
    /// tries first, and what [`Array::read_fast`] runs; `None` where the walk refuses them.
    #[inline(always)]
    fn read_fast(
        w: &mut FastReader<'a>,
        count: usize,
        version: i16,
        flexible: bool,
    ) -> Option<Self> {
        let offset = w.offset();
        let bytes = match T::WIRE_SIZE {
            Some(size) => w.take(count.checked_mul(size)?)?,
            None => {
                let start = w.rest();
                Self::walk_each(w, count, version, flexible)?;
                start.get(..start.len().saturating_sub(w.rest().len()))?
            }
        };
        Some(Self::new(bytes, count, offset, version, flexible))
    }

    /// Walks `count` elements (see [`ElementCodec::walk`]).
    #[inline(always)]
    fn walk_each(w: &mut FastReader<'a>, count: usize, version: i16, flexible: bool) -> Option<()> {
        // Empty arrays (no aborted transactions, no offline replicas) are common: no call.
        if count == 0 {
            return Some(());
        }
        let (rest, end, validated, check_utf8) = w.into_parts();
        let rest = Self::walk_run(rest, end, validated, check_utf8, count, version, flexible)?;
        w.set_rest(rest);
        Some(())
    }

    /// The loop of [`ArrayView::walk_each`] ([`ElementCodec::walk_many`]), out of line: it takes
    /// the fast reader's parts (see [`FastReader::into_parts`]) and returns the bytes after the
    /// elements, so that neither its fast reader nor the caller's has its address taken, and both
    /// stay in registers.
    #[inline(never)]
    #[allow(clippy::too_many_arguments, reason = "a fast reader in registers")]
    fn walk_run(
        rest: &'a [u8],
        end: usize,
        validated: bool,
        check_utf8: bool,
        count: usize,
        version: i16,
        flexible: bool,
    ) -> Option<&'a [u8]> {
        let w = FastReader::from_parts(rest, end, validated, check_utf8);
        T::walk_many(w, count, version, flexible)
    }

    /// Walks over a whole array (length prefix and elements) as [`Array::read`] (or, with
    /// `nullable`, [`Array::read_nullable`]) reads it, without building anything: the step
    /// generated [`ElementCodec::walk`]s take over a nested array.
    #[inline(always)]
    pub(crate) fn walk(
        w: &mut FastReader<'a>,
        version: i16,
        flexible: bool,
        nullable: bool,
    ) -> Option<()> {
        // Fixed-size elements: the bounds check of their total covers the count's.
        if let Some(size) = T::WIRE_SIZE {
            let Some(count) = w.raw_array_len(flexible, nullable)? else {
                return Some(());
            };
            return w.skip(count.checked_mul(size)?);
        }
        let Some(count) = w.array_len(flexible, nullable)? else {
            return Some(());
        };
        Self::walk_each(w, count, version, flexible)
    }

    /// Reads `count` elements one by one and returns the bytes they span.
    #[inline(never)]
    fn read_each(
        r: &mut Reader<'a>,
        count: usize,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<&'a [u8], Failed> {
        span(r, count, |r| {
            T::read_element(r, version, flexible, path).map(|_| ())
        })
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::try_from(self.count).unwrap_or(usize::MAX)
    }

    /// True when there are no elements.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded elements (without the length prefix).
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Absolute offset of the first element in the decoded input.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The version the elements were read at.
    #[must_use]
    pub const fn version(&self) -> i16 {
        self.version
    }

    /// Iterates the elements, each a copy decoded from the bytes: see [`Array::iter`] for how
    /// to change them.
    #[must_use]
    pub fn iter(&self) -> ArrayIter<'a, T> {
        ArrayIter(IterRepr::Wire {
            w: FastReader::validated(self.bytes, self.offset),
            left: self.count,
            version: self.version,
            flexible: self.flexible,
        })
    }
}

/// Runs `step` `count` times and returns the bytes it advanced over.
#[inline(always)]
fn span<'a>(
    r: &mut Reader<'a>,
    count: usize,
    mut step: impl FnMut(&mut Reader<'a>) -> Result<(), Failed>,
) -> Result<&'a [u8], Failed> {
    let start = r.rest();
    for _ in 0..count {
        step(r)?;
    }
    let used = start.len().saturating_sub(r.remaining());
    Ok(start.get(..used).unwrap_or_default())
}

/// An array field: a validated wire view (what decoding returns) or a caller's slice (what an
/// encoder builds, from a stack array, a `heapless::Vec` or any other slice).
///
/// Equality compares elements, whatever the representation.
pub enum Array<'a, T> {
    /// Elements as decoded from the wire.
    Wire(ArrayView<'a, T>),
    /// Elements supplied by the caller.
    Slice(&'a [T]),
}

impl<T> Clone for Array<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Array<'_, T> {}

impl<T> Default for Array<'_, T> {
    fn default() -> Self {
        Self::Slice(&[])
    }
}

impl<'a, T> From<&'a [T]> for Array<'a, T> {
    fn from(slice: &'a [T]) -> Self {
        Self::Slice(slice)
    }
}

impl<'a, T, const N: usize> From<&'a [T; N]> for Array<'a, T> {
    fn from(slice: &'a [T; N]) -> Self {
        Self::Slice(slice)
    }
}

impl<'a, T> From<&'a mut [T]> for Array<'a, T> {
    fn from(slice: &'a mut [T]) -> Self {
        Self::Slice(slice)
    }
}

impl<'a, T, const N: usize> From<&'a heapless::Vec<T, N>> for Array<'a, T> {
    fn from(vec: &'a heapless::Vec<T, N>) -> Self {
        Self::Slice(vec.as_slice())
    }
}

#[cfg(feature = "alloc")]
impl<'a, T> From<&'a alloc::vec::Vec<T>> for Array<'a, T> {
    fn from(vec: &'a alloc::vec::Vec<T>) -> Self {
        Self::Slice(vec.as_slice())
    }
}

impl<'a, T> From<ArrayView<'a, T>> for Array<'a, T> {
    fn from(view: ArrayView<'a, T>) -> Self {
        Self::Wire(view)
    }
}

/// What the setter of a nullable field takes: the value itself, for a value, or an `Option` of
/// it, `None` for null. A nullable array's setter takes what a non-nullable one does (a slice, a
/// fixed array, a `heapless::Vec`, a `Vec`, a decoded array) and `None`:
///
/// ```
/// use kwire::messages::MetadataRequest;
/// use kwire::messages::metadata_request::MetadataRequestTopic;
///
/// let topics = [MetadataRequestTopic::default().with_name(Some("events"))];
/// let some = MetadataRequest::default().with_topics(&topics);
/// assert_eq!(some.topics.map(|t| t.len()), Some(1));
/// // Null asks for every topic; the default, an empty list, for none.
/// let all = MetadataRequest::default().with_topics(None);
/// assert!(all.topics.is_none());
/// assert_eq!(MetadataRequest::default().topics.map(|t| t.len()), Some(0));
/// ```
///
/// Nullable bytes, such as a new record's key and value
/// ([`NewRecord::with_key`](crate::records::NewRecord::with_key)), are set from a reference to
/// anything that is bytes (a slice, a fixed array, a `heapless::Vec`, a `Vec`, a `str`), from an
/// `Option<&[u8]>`, or from `None`.
pub trait IntoNullable<T> {
    /// The field's value, `None` for null.
    fn into_nullable(self) -> Option<T>;
}

impl<'a, T, A: Into<Array<'a, T>>> IntoNullable<Array<'a, T>> for A {
    fn into_nullable(self) -> Option<Array<'a, T>> {
        Some(self.into())
    }
}

impl<'a, T> IntoNullable<Array<'a, T>> for Option<Array<'a, T>> {
    fn into_nullable(self) -> Option<Array<'a, T>> {
        self
    }
}

impl<'a, B: AsRef<[u8]> + ?Sized> IntoNullable<&'a [u8]> for &'a B {
    fn into_nullable(self) -> Option<&'a [u8]> {
        Some(self.as_ref())
    }
}

/// The one `Option` that converts to nullable bytes, so that `None` needs no type.
impl<'a> IntoNullable<&'a [u8]> for Option<&'a [u8]> {
    fn into_nullable(self) -> Option<&'a [u8]> {
        self
    }
}

/// The caller's storage is shorter than the array copied into it (see [`Array::map_into`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StorageTooSmall {
    /// Elements the array has.
    pub required: usize,
    /// Elements the storage holds.
    pub available: usize,
}

impl fmt::Display for StorageTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "storage too small: the array has {} elements, the storage holds {}",
            self.required, self.available
        )
    }
}

impl core::error::Error for StorageTooSmall {}

impl<'a, T: Element<'a>> Array<'a, T> {
    /// Reads a non-nullable array: its length prefix, then every element.
    ///
    /// # Errors
    ///
    /// [`Failed`], with a length error (`UnexpectedNull`, `NegativeLength`, `Truncated`) or an
    /// element error in `r`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn read(
        r: &mut Reader<'a>,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<Self, Failed> {
        let n = r.array_len(flexible, path)?;
        ArrayView::read(r, n, version, flexible, path).map(Self::Wire)
    }

    /// Reads a nullable array.
    ///
    /// # Errors
    ///
    /// As [`Array::read`], without the null errors.
    #[inline(always)]
    #[doc(hidden)]
    pub fn read_nullable(
        r: &mut Reader<'a>,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<Self>, Failed> {
        match r.nullable_array_len(flexible, path)? {
            Some(n) => ArrayView::read(r, n, version, flexible, path).map(|v| Some(Self::Wire(v))),
            None => Ok(None),
        }
    }

    /// Reads a non-nullable array through a fast reader, as [`Array::read`] reads it; `None` where
    /// the read would fail or the walk refuses (see [`ElementCodec::read_fast`]).
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn read_fast(w: &mut FastReader<'a>, version: i16, flexible: bool) -> Option<Self> {
        let n = Self::read_fast_len(w, flexible, false)??;
        ArrayView::read_fast(w, n, version, flexible).map(Self::Wire)
    }

    /// Reads a nullable array through a fast reader, as [`Array::read_nullable`] reads it.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn read_fast_nullable(
        w: &mut FastReader<'a>,
        version: i16,
        flexible: bool,
    ) -> Option<Option<Self>> {
        match Self::read_fast_len(w, flexible, true)? {
            Some(n) => ArrayView::read_fast(w, n, version, flexible).map(|v| Some(Self::Wire(v))),
            None => Some(None),
        }
    }

    /// The element count of an array read through a fast reader: for fixed-size elements, the
    /// bounds check of their total (in [`ArrayView::read_fast`]) covers the count's.
    #[cfg(feature = "perf")]
    #[inline(always)]
    fn read_fast_len(
        w: &mut FastReader<'a>,
        flexible: bool,
        nullable: bool,
    ) -> Option<Option<usize>> {
        if T::WIRE_SIZE.is_some() {
            w.raw_array_len(flexible, nullable)
        } else {
            w.array_len(flexible, nullable)
        }
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::Wire(v) => v.len(),
            Self::Slice(s) => s.len(),
        }
    }

    /// True when there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Iterates the elements by value.
    ///
    /// Each element is a copy, read from the bytes or the slice behind the array: changing one
    /// (`for mut b in brokers.iter() { b.port = 19092 }`) changes nothing in the message. To
    /// change elements, [`Array::map_into`] writes the changed copies into storage of yours,
    /// and the message's setter takes them:
    ///
    /// ```
    /// use kwire::messages::MetadataResponse;
    /// use kwire::messages::metadata_response::MetadataResponseBroker;
    ///
    /// let brokers = [MetadataResponseBroker::default().with_host("kafka-1").with_port(9092)];
    /// let metadata = MetadataResponse::default().with_brokers(&brokers);
    ///
    /// let mut storage = [MetadataResponseBroker::default(); 8];
    /// let moved = metadata.brokers.map_into(&mut storage, |b| b.with_port(19092))?;
    /// let metadata = metadata.with_brokers(&*moved);
    /// assert!(metadata.brokers.iter().all(|b| b.port == 19092));
    /// # Ok::<(), kwire::codec::StorageTooSmall>(())
    /// ```
    #[must_use]
    pub fn iter(&self) -> ArrayIter<'a, T> {
        match self {
            Self::Wire(v) => v.iter(),
            Self::Slice(s) => ArrayIter(IterRepr::Slice(s.iter())),
        }
    }

    /// The element at `index`, or `None` past the end. A caller's slice is indexed directly;
    /// a decoded array is read from the start up to the element, as its elements have no fixed
    /// size: to visit many, iterate.
    ///
    /// ```
    /// use kwire::codec::Array;
    ///
    /// let ids = [3, 5, 8];
    /// let array = Array::from(&ids);
    /// assert_eq!((array.first(), array.get(1), array.last()), (Some(3), Some(5), Some(8)));
    /// assert_eq!(array.get(3), None);
    /// ```
    #[must_use]
    pub fn get(&self, index: usize) -> Option<T> {
        match self {
            Self::Wire(v) => v.iter().nth(index),
            Self::Slice(s) => s.get(index).copied(),
        }
    }

    /// The first element, or `None` when the array is empty.
    #[must_use]
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }

    /// The last element, or `None` when the array is empty (a decoded array is read to its
    /// end).
    #[must_use]
    pub fn last(&self) -> Option<T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Passes every element through `f` into the caller's `storage`, in order, and returns the
    /// filled part: the way to change the elements of a decoded array, which is a view over the
    /// bytes it was read from. The result converts back into an array for a setter.
    ///
    /// ```
    /// use kwire::codec::Array;
    ///
    /// let decoded = Array::from(&[1, 2, 3]);
    /// let mut storage = [0i32; 8];
    /// let doubled = decoded.map_into(&mut storage, |x| x * 2)?;
    /// doubled[0] = -1;
    /// assert_eq!(Array::from(doubled), Array::from(&[-1, 4, 6]));
    /// # Ok::<(), kwire::codec::StorageTooSmall>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`StorageTooSmall`] when `storage` is shorter than the array; nothing is written then.
    pub fn map_into<'s, U>(
        &self,
        storage: &'s mut [U],
        mut f: impl FnMut(T) -> U,
    ) -> Result<&'s mut [U], StorageTooSmall> {
        let len = self.len();
        let available = storage.len();
        let filled = storage.get_mut(..len).ok_or(StorageTooSmall {
            required: len,
            available,
        })?;
        for (slot, element) in filled.iter_mut().zip(self.iter()) {
            *slot = f(element);
        }
        Ok(filled)
    }

    /// Copies the elements into the caller's `storage` and returns the filled part, ready to be
    /// changed in place: [`Array::map_into`] without a mapping.
    ///
    /// # Errors
    ///
    /// [`StorageTooSmall`] when `storage` is shorter than the array; nothing is written then.
    pub fn copy_into<'s>(&self, storage: &'s mut [T]) -> Result<&'s mut [T], StorageTooSmall> {
        self.map_into(storage, |element| element)
    }

    /// The elements in a new `Vec`.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn to_vec(&self) -> alloc::vec::Vec<T> {
        self.iter().collect()
    }

    /// The wire view, if this array was decoded.
    #[must_use]
    pub const fn as_view(&self) -> Option<&ArrayView<'a, T>> {
        match self {
            Self::Wire(v) => Some(v),
            Self::Slice(_) => None,
        }
    }

    /// Encoded size with the length prefix at `version`.
    ///
    /// A wire view encoded at the version it was read at is copied verbatim.
    ///
    /// # Errors
    ///
    /// `LengthOverflow` and element errors.
    #[inline(always)]
    #[doc(hidden)]
    pub fn encoded_len(
        &self,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        let prefix = super::writer::prefix_len(self.len(), flexible, false, path)?;
        // Fixed-width elements have the same bytes at every version.
        if let Some(size) = T::WIRE_SIZE {
            return Ok(prefix.saturating_add(self.len().saturating_mul(size)));
        }
        let body = match self {
            Self::Wire(v) if T::same_encoding(v.version, v.flexible, version, flexible) => {
                v.bytes.len()
            }
            Self::Slice(s) => T::len_many(s, version, flexible, path)?,
            Self::Wire(v) => {
                let mut total = 0usize;
                for e in v.iter() {
                    total = total.saturating_add(e.element_len(version, flexible, path)?);
                }
                total
            }
        };
        Ok(prefix.saturating_add(body))
    }

    /// Writes the length prefix and the elements.
    #[inline(always)]
    #[doc(hidden)]
    pub fn write(&self, w: &mut Writer<'_>, version: i16, flexible: bool) {
        match self {
            Self::Slice(s) => T::write_array(s, w, version, flexible),
            // Fixed-width elements have the same bytes at every version.
            Self::Wire(v)
                if T::WIRE_SIZE.is_some()
                    || T::same_encoding(v.version, v.flexible, version, flexible) =>
            {
                w.len(v.len(), LengthPrefix::bytes(flexible));
                w.put(v.bytes);
            }
            Self::Wire(v) => {
                w.len(v.len(), LengthPrefix::bytes(flexible));
                for e in v.iter() {
                    e.write_element(w, version, flexible);
                }
            }
        }
    }

    /// The first value an element holds that an encode at `version` cannot carry, as
    /// [`Encode::dropped_field`] finds it. A decoded array that the encode copies as the bytes
    /// it was read from (read at `version`) holds none, and is not looked into: in a build of
    /// one version, no element decoder is linked for it.
    #[allow(
        dead_code,
        reason = "called by the generated code of the APIs with arrays of structs, which a build \
                  may leave out"
    )]
    pub(crate) fn dropped_field(&self, version: i16) -> Option<DroppedField>
    where
        T: Encode,
    {
        match self {
            Self::Slice(s) => s.iter().find_map(|e| e.dropped_field(version)),
            // As `write` decides on a verbatim copy. A message's flexibility follows its version,
            // so at the version read it is the flexibility read.
            Self::Wire(v)
                if T::WIRE_SIZE.is_some()
                    || T::same_encoding(v.version, v.flexible, version, v.flexible) =>
            {
                None
            }
            Self::Wire(v) => v.iter().find_map(|e| e.dropped_field(version)),
        }
    }

    /// Encoded size of a nullable array.
    ///
    /// # Errors
    ///
    /// As [`Array::encoded_len`].
    #[inline]
    #[doc(hidden)]
    pub fn nullable_encoded_len(
        v: Option<&Self>,
        version: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        match v {
            Some(a) => a.encoded_len(version, flexible, path),
            None => Ok(LengthPrefix::bytes(flexible).null_len()),
        }
    }

    /// Writes a nullable array.
    #[inline]
    #[doc(hidden)]
    pub fn write_nullable(v: Option<&Self>, w: &mut Writer<'_>, version: i16, flexible: bool) {
        match v {
            Some(a) => a.write(w, version, flexible),
            None => w.null_len(LengthPrefix::bytes(flexible)),
        }
    }
}

impl<'a, T: Element<'a> + PartialEq> PartialEq for Array<'a, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a, T: Element<'a> + fmt::Debug + 'a> fmt::Debug for Array<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: Element<'a> + fmt::Debug + 'a> fmt::Debug for ArrayView<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Writes `[a, b, c]` to a defmt formatter.
#[cfg(feature = "defmt")]
pub(crate) fn defmt_list<I>(f: defmt::Formatter<'_>, items: I)
where
    I: Iterator,
    I::Item: defmt::Format,
{
    defmt::write!(f, "[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            defmt::write!(f, ", ");
        }
        defmt::write!(f, "{}", item);
    }
    defmt::write!(f, "]");
}

#[cfg(feature = "defmt")]
impl<'a, T: Element<'a> + defmt::Format + 'a> defmt::Format for Array<'a, T> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt_list(f, self.iter());
    }
}

#[cfg(feature = "defmt")]
impl<'a, T: Element<'a> + defmt::Format + 'a> defmt::Format for ArrayView<'a, T> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt_list(f, self.iter());
    }
}

impl<'a, T: Element<'a>> IntoIterator for &Array<'a, T> {
    type Item = T;
    type IntoIter = ArrayIter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T: Element<'a>> IntoIterator for Array<'a, T> {
    type Item = T;
    type IntoIter = ArrayIter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over the elements of an [`Array`], by value.
pub struct ArrayIter<'a, T>(IterRepr<'a, T>);

enum IterRepr<'a, T> {
    Wire {
        w: FastReader<'a>,
        left: u32,
        version: i16,
        flexible: bool,
    },
    Slice(core::slice::Iter<'a, T>),
}

impl<T> fmt::Debug for ArrayIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayIter").finish_non_exhaustive()
    }
}

impl<'a, T: Element<'a>> Iterator for ArrayIter<'a, T> {
    type Item = T;

    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn next(&mut self) -> Option<T> {
        match &mut self.0 {
            IterRepr::Wire {
                w,
                left,
                version,
                flexible,
            } => {
                // Fixed-width elements: the view's bytes end where its elements do, so the
                // bounds check of the read is the only test (the count is left as it was).
                if T::WIRE_SIZE.is_some() {
                    return T::read_fast(w, *version, *flexible);
                }
                *left = left.checked_sub(1)?;
                // Every element was validated when the view was built: the fast reader reads it,
                // or leaves it (a non-empty tagged section of its own fields) to a read that
                // cannot fail. If it ever did (a walk accepting what a read refuses), the iterator
                // ends, and builds with debug assertions, the tests and the fuzz targets among
                // them, say so.
                #[cfg(feature = "perf")]
                let read = if T::FAST_READ_REFUSES {
                    let start = w.rest();
                    if let Some(v) = T::read_fast(w, *version, *flexible) {
                        return Some(v);
                    }
                    w.set_rest(start);
                    T::read_fast_sections(*w, *version, *flexible).map(|(v, rest)| {
                        w.set_rest(rest);
                        v
                    })
                } else {
                    T::read_fast(w, *version, *flexible)
                };
                #[cfg(not(feature = "perf"))]
                let read = w.read_with(|r| T::read_element(r, *version, *flexible, ""));
                match read {
                    Some(v) => Some(v),
                    None => {
                        debug_assert!(
                            false,
                            "an element of a validated array failed to read: {} v{version}",
                            core::any::type_name::<T>()
                        );
                        *left = 0;
                        None
                    }
                }
            }
            IterRepr::Slice(it) => it.next().copied(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IterRepr::Wire { w, left, .. } => {
                let n = match T::WIRE_SIZE {
                    Some(size) => w.rest().len().checked_div(size).unwrap_or(0),
                    None => usize::try_from(*left).unwrap_or(usize::MAX),
                };
                (n, Some(n))
            }
            IterRepr::Slice(it) => it.size_hint(),
        }
    }
}

impl<'a, T: Element<'a>> ExactSizeIterator for ArrayIter<'a, T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Uuid;

    /// The array as the element-by-element path writes it.
    fn reference<T: for<'x> Element<'x>>(elements: &[T], flexible: bool) -> ([u8; 2048], usize) {
        let mut buf = [0u8; 2048];
        let mut w = Writer::new(&mut buf);
        w.len(elements.len(), LengthPrefix::bytes(flexible));
        for e in elements {
            e.write_element(&mut w, 0, flexible);
        }
        assert!(!w.overflowed());
        let n = w.position();
        (buf, n)
    }

    fn check<T: for<'x> Element<'x> + PartialEq + fmt::Debug>(elements: &[T]) {
        for flexible in [false, true] {
            let (expected, n) = reference(elements, flexible);
            let array = Array::Slice(elements);
            assert_eq!(array.encoded_len(0, flexible, "x").unwrap(), n);
            let mut buf = [0u8; 2048];
            let mut w = Writer::new(&mut buf);
            array.write(&mut w, 0, flexible);
            assert_eq!(w.position(), n);
            assert_eq!(buf[..n], expected[..n]);
            // Too small by one: the overflow is recorded and the position still counts it all.
            let mut short = [0u8; 2048];
            let mut w = Writer::new(&mut short[..n - 1]);
            array.write(&mut w, 0, flexible);
            assert!(w.overflowed());
            assert_eq!(w.position(), n);
            // Decoded at one flexibility, written at the other: same elements.
            let mut r = Reader::new(&expected[..n]);
            let decoded = Array::<T>::read(&mut r, 0, flexible, "x").unwrap();
            let mut again = [0u8; 2048];
            let mut w = Writer::new(&mut again);
            decoded.write(&mut w, 3, !flexible);
            let m = w.position();
            let (other, m2) = reference(elements, !flexible);
            assert_eq!(again[..m], other[..m2]);
            // Cut inside the elements, past the count's own check (a byte an element): the
            // error of reading them one by one.
            let size = T::WIRE_SIZE.unwrap();
            let prefix = n - elements.len() * size;
            for cut in prefix + elements.len()..n {
                let mut r = Reader::new(&expected[..cut]);
                let got = Array::<T>::read(&mut r, 0, flexible, "x")
                    .map(drop)
                    .map_err(|Failed| r.take_error());
                let mut r = Reader::new(&expected[..cut]);
                r.take(prefix, "").unwrap();
                let failed = (0..elements.len())
                    .find_map(|_| T::read_element(&mut r, 0, flexible, "x").err());
                assert_eq!(failed, Some(Failed), "cut {cut}");
                assert_eq!(got, Err(r.take_error()), "cut {cut}");
            }
        }
    }

    #[test]
    fn fixed_width_arrays_match_the_element_path() {
        let ints: [i32; 300] = core::array::from_fn(|i| i32::try_from(i).unwrap() * -70_001);
        for n in [0, 1, 3, 8, 9, 126, 127, 128, 300] {
            check(&ints[..n]);
        }
        let longs: [i64; 130] = core::array::from_fn(|i| i64::try_from(i).unwrap() << 40);
        check(&longs[..]);
        check(&longs[..5]);
        let shorts: [i16; 130] = core::array::from_fn(|i| i16::try_from(i).unwrap() - 60);
        check(&shorts[..]);
        check(&[true, false, true][..]);
        check(&[1.5f64, -0.0][..]);
        check(&[Uuid::from_u64_pair(1, 2), Uuid::ZERO][..]);
        check(&[u16::MAX, 7][..]);
        check(&[u32::MAX, 7][..]);
        check(&[i8::MIN, 7][..]);
    }
}
