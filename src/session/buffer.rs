//! The receive buffer: chunks in, whole frames out.

use crate::error::{DecodeError, Status};
use crate::frame::{self, SIZE_LEN};

use super::SessionError;

/// A receive buffer over storage the caller gives it (an array, a `&mut [u8]`, a `Vec<u8>`):
/// bytes go in as the network delivers them, in
/// chunks of any size, and come out one whole frame (size prefix included) at a time, borrowed
/// from the storage.
///
/// A frame is handed out until the next call that reads or fills the buffer, which releases it.
/// Bytes after it stay where they are until room is needed at the end: the storage is
/// compacted then, so a frame as large as the storage allows is always received whole.
///
/// The largest frame accepted is the storage's length less the 4-byte size prefix, or less if
/// the caller says so ([`FrameBuffer::with_max_frame`]). A size prefix above it, or a negative
/// one, is [`SessionError::Framing`]: the stream cannot be read further, and the buffer says
/// so on every later call.
///
/// ```
/// use kwire::session::FrameBuffer;
///
/// let mut storage = [0u8; 64];
/// let mut rx = FrameBuffer::new(&mut storage);
/// // Two frames of 2 and 1 bytes, delivered in pieces that cut across them.
/// rx.push(&[0, 0, 0, 2, 7]);
/// assert_eq!(rx.next_frame()?, None);
/// rx.push(&[8, 0, 0, 0]);
/// assert_eq!(rx.next_frame()?, Some(&[0, 0, 0, 2, 7, 8][..]));
/// assert_eq!(rx.next_frame()?, None);
/// // Straight from the network: read into the spare room, then say how much arrived.
/// let spare = rx.spare();
/// spare[0] = 1;
/// spare[1] = 9;
/// rx.filled(2);
/// assert_eq!(rx.next_frame()?, Some(&[0, 0, 0, 1, 9][..]));
/// assert_eq!(rx.buffered(), 0);
/// # Ok::<(), kwire::session::SessionError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FrameBuffer<S> {
    storage: S,
    /// The first byte not yet consumed.
    start: usize,
    /// The end of the bytes received.
    end: usize,
    /// The length of the frame handed out at `start`, released by the next call.
    handed: usize,
    /// The largest frame accepted, size prefix excluded.
    max_frame: usize,
    /// The framing error that stopped the stream.
    broken: Option<DecodeError>,
}

impl<S: AsRef<[u8]> + AsMut<[u8]>> FrameBuffer<S> {
    /// A buffer over `storage`, accepting frames as large as it holds.
    #[must_use]
    pub fn new(storage: S) -> Self {
        let max_frame = storage.as_ref().len().saturating_sub(SIZE_LEN);
        Self {
            storage,
            start: 0,
            end: 0,
            handed: 0,
            max_frame,
            broken: None,
        }
    }

    /// Accepts frames of at most `max` bytes after the size prefix (a broker's
    /// `socket.request.max.bytes`, a client's fetch limit), or as many as the storage holds if
    /// that is fewer.
    #[must_use]
    pub fn with_max_frame(mut self, max: usize) -> Self {
        self.max_frame = max.min(self.storage.as_ref().len().saturating_sub(SIZE_LEN));
        self
    }

    /// The largest frame accepted, size prefix excluded.
    #[must_use]
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// Releases the frame handed out last.
    fn release(&mut self) {
        self.start = self.start.saturating_add(self.handed).min(self.end);
        self.handed = 0;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// The room after the bytes received, to read the network's next bytes into; then call
    /// [`FrameBuffer::filled`]. Releases the frame handed out last, and moves the bytes not yet
    /// consumed to the start of the storage first if they are not there.
    ///
    /// Empty only when the storage is full of an unfinished frame, which cannot happen to a
    /// frame within [`FrameBuffer::max_frame`]: take the complete frames out first.
    pub fn spare(&mut self) -> &mut [u8] {
        self.release();
        if self.start > 0 {
            move_to_front(self.storage.as_mut(), self.start, self.end);
            self.end = self.end.saturating_sub(self.start);
            self.start = 0;
        }
        self.storage
            .as_mut()
            .get_mut(self.end..)
            .unwrap_or_default()
    }

    /// Records that the network wrote `n` bytes at the start of [`FrameBuffer::spare`].
    pub fn filled(&mut self, n: usize) {
        self.end = self.end.saturating_add(n).min(self.storage.as_ref().len());
    }

    /// Copies as much of `bytes` as there is room for; returns how many bytes were taken. Fewer
    /// than `bytes.len()` only when the storage is full: take the complete frames out with
    /// [`FrameBuffer::next_frame`], then push the rest.
    pub fn push(&mut self, bytes: &[u8]) -> usize {
        let spare = self.spare();
        let n = spare.len().min(bytes.len());
        copy(spare, bytes);
        self.filled(n);
        n
    }

    /// The next whole frame, size prefix included, or `None` until more bytes arrive. Releases
    /// the frame handed out before.
    ///
    /// # Errors
    ///
    /// [`SessionError::Framing`] for a negative size prefix, or one over
    /// [`FrameBuffer::max_frame`]: then, and on every later call.
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>, SessionError> {
        Ok(self.advance()?.map(|_| self.current()))
    }

    /// How many more bytes the next frame needs: 0 when a whole frame is buffered, for a
    /// reader that blocks until then (the size prefix's 4 bytes at least, before it is whole).
    /// Releases the frame handed out before.
    ///
    /// ```
    /// use kwire::session::FrameBuffer;
    ///
    /// let mut rx = FrameBuffer::new(vec![0u8; 64]);
    /// assert_eq!(rx.missing()?, 4);
    /// rx.push(&[0, 0, 0, 3, 1]);
    /// assert_eq!(rx.missing()?, 2);
    /// rx.push(&[2, 3]);
    /// assert_eq!(rx.missing()?, 0);
    /// # Ok::<(), kwire::session::SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`FrameBuffer::next_frame`].
    pub fn missing(&mut self) -> Result<usize, SessionError> {
        Ok(match self.look()? {
            Status::Complete(_) => 0,
            Status::Incomplete { needed } => needed,
        })
    }

    /// Finds the next whole frame and marks it handed out; returns its length.
    pub(crate) fn advance(&mut self) -> Result<Option<usize>, SessionError> {
        Ok(match self.look()? {
            Status::Complete(len) => {
                self.handed = len;
                Some(len)
            }
            Status::Incomplete { .. } => None,
        })
    }

    /// Releases the frame handed out before, and looks for the next: its length when it is
    /// whole, else how many bytes it still needs.
    fn look(&mut self) -> Result<Status<usize>, SessionError> {
        self.release();
        if let Some(e) = self.broken {
            return Err(SessionError::Framing(e));
        }
        match frame::split(self.unread(), self.max_frame) {
            Ok(Status::Complete(f)) => Ok(Status::Complete(f.len())),
            Ok(Status::Incomplete { needed }) => Ok(Status::Incomplete { needed }),
            Err(e) => {
                self.broken = Some(e);
                Err(SessionError::Framing(e))
            }
        }
    }

    /// The frame handed out last (empty if none).
    pub(crate) fn current(&self) -> &[u8] {
        self.unread().get(..self.handed).unwrap_or_default()
    }

    /// The bytes received and not consumed.
    fn unread(&self) -> &[u8] {
        self.storage
            .as_ref()
            .get(self.start..self.end)
            .unwrap_or_default()
    }

    /// The storage back, with whatever it holds.
    #[must_use]
    pub fn into_inner(self) -> S {
        self.storage
    }

    /// Bytes received that no frame handed out holds: the start of the next frame.
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.end
            .saturating_sub(self.start)
            .saturating_sub(self.handed)
    }

    /// At the end of the stream (the peer closed the connection): `Ok` when no unfinished frame
    /// is left.
    ///
    /// # Errors
    ///
    /// [`SessionError::ClosedMidFrame`], with the bytes received of the frame and how many more
    /// it needed.
    pub fn finish(&self) -> Result<(), SessionError> {
        let received = self.buffered();
        if received == 0 {
            return Ok(());
        }
        let rest = self.unread().get(self.handed..).unwrap_or_default();
        let missing = match frame::split(rest, usize::MAX) {
            Ok(Status::Incomplete { needed }) => needed,
            _ => 0,
        };
        Err(SessionError::ClosedMidFrame { received, missing })
    }
}

#[cfg(feature = "alloc")]
impl FrameBuffer<alloc::vec::Vec<u8>> {
    /// A buffer that starts with `initial` bytes of storage and grows, when
    /// [`FrameBuffer::reserve_frame`] is called, to hold frames of up to `max_frame` bytes after
    /// the size prefix: for a program that relays frames of any size without holding room for
    /// the largest on every connection.
    #[must_use]
    pub fn growing(initial: usize, max_frame: usize) -> Self {
        let mut buffer = Self::new(alloc::vec![0; initial.max(SIZE_LEN)]);
        buffer.max_frame = max_frame;
        buffer
    }

    /// Grows the storage, if it must, so that the next frame fits whole once its size prefix
    /// has been read; [`FrameBuffer::spare`] then has room for the bytes it still needs.
    ///
    /// ```
    /// use kwire::session::FrameBuffer;
    ///
    /// let mut rx = FrameBuffer::growing(8, 1 << 20);
    /// rx.push(&[0, 0, 1, 0]); // a frame of 256 bytes
    /// rx.reserve_frame()?;
    /// assert!(rx.spare().len() >= 256);
    /// # Ok::<(), kwire::session::SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`FrameBuffer::next_frame`]: a size prefix over the largest frame accepted.
    pub fn reserve_frame(&mut self) -> Result<(), SessionError> {
        let missing = self.missing()?;
        let room = self.spare().len();
        if missing > room {
            let len = self.end.saturating_add(missing);
            self.storage.resize(len, 0);
        }
        Ok(())
    }
}

/// Moves `storage[start..end]` to the start of `storage`, a byte at a time from the front, so
/// that every byte is read before it is overwritten.
fn move_to_front(storage: &mut [u8], start: usize, end: usize) {
    for (to, from) in (start..end).enumerate() {
        if let Some(&byte) = storage.get(from)
            && let Some(slot) = storage.get_mut(to)
        {
            *slot = byte;
        }
    }
}

/// Copies as much of `from` as `to` has room for. (Not `copy_from_slice`, whose length check
/// is a panic path firmware would link.)
pub(crate) fn copy(to: &mut [u8], from: &[u8]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = *f;
    }
}

#[cfg(test)]
mod tests {
    use super::move_to_front;

    #[test]
    fn the_bytes_left_move_to_the_front() {
        for start in 1..12 {
            for end in start..=12 {
                let mut storage: [u8; 12] = core::array::from_fn(|i| i as u8);
                move_to_front(&mut storage, start, end);
                let moved: std::vec::Vec<u8> = (start..end).map(|i| i as u8).collect();
                assert_eq!(storage[..end - start], moved[..], "{start}..{end}");
            }
        }
    }
}
