//! The requests of a connection that wait for their responses.

use heapless::Deque;

use crate::header::response_header_version;
use crate::wire::ApiKey;

use super::SessionError;

/// A request in flight: what its response is read by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pending<T = ()> {
    /// The correlation id the response carries.
    pub correlation_id: i32,
    /// The request's API.
    pub api_key: ApiKey,
    /// The request's version: the response is written at the same.
    pub version: i16,
    /// What the caller keeps with the request (a relay's arrival time, a capture's frame
    /// number, the `u64` a [`Client`](super::Client) was given with
    /// [`send_tagged`](super::Client::send_tagged)); `()` for none.
    pub tag: T,
}

impl<T> Pending<T> {
    /// The request without its tag.
    #[must_use]
    pub fn untagged(&self) -> Pending {
        Pending {
            correlation_id: self.correlation_id,
            api_key: self.api_key,
            version: self.version,
            tag: (),
        }
    }

    /// The version of the response's header: 0 for ApiVersions at every version, as Kafka's
    /// rule has it, else 1 where the API's flexible versions begin.
    #[must_use]
    pub fn response_header_version(&self) -> i16 {
        response_header_version(self.api_key, self.version)
    }
}

/// What [`Client::send`](super::Client::send) wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sent {
    /// The frame's length: the bytes at the start of the output buffer to send.
    pub len: usize,
    /// The correlation id the request carries.
    pub correlation_id: i32,
    /// The request's API.
    pub api_key: ApiKey,
    /// The version it was encoded at.
    pub version: i16,
    /// Whether a response comes: false for a Produce with `acks` 0, which the broker does not
    /// answer and the session does not wait for.
    pub answered: bool,
}

/// The requests of one connection waiting for their responses, oldest first, in storage for
/// `N`: the correlation tracking of [`Client`](super::Client), for a relay or a capture that
/// sees requests it did not encode.
///
/// Kafka answers the requests of a connection in the order it receives them, so a response
/// answers the oldest request in flight; [`InFlight::answer`] checks that it does.
///
/// ```
/// use kwire::session::{InFlight, Pending, SessionError};
/// use kwire::ApiKey;
///
/// let mut waiting: InFlight<8, &str> = InFlight::new();
/// for (id, tag) in [(5, "first"), (6, "second")] {
///     let request = Pending { correlation_id: id, api_key: ApiKey::METADATA, version: 12, tag };
///     waiting.push(request)?;
/// }
/// assert_eq!(waiting.answer(5)?.tag, "first");
/// assert_eq!(waiting.answer(9), Err(SessionError::NoRequest { correlation_id: 9 }));
/// assert_eq!(waiting.answer(6)?.tag, "second");
/// # Ok::<(), SessionError>(())
/// ```
#[derive(Debug, Clone)]
pub struct InFlight<const N: usize, T = ()> {
    queue: Deque<Pending<T>, N>,
}

impl<const N: usize, T> Default for InFlight<N, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, T> InFlight<N, T> {
    /// No request in flight.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            queue: Deque::new(),
        }
    }

    /// Remembers a request sent, after every one before it.
    ///
    /// # Errors
    ///
    /// [`SessionError::TooManyInFlight`] when `N` requests are in flight;
    /// [`SessionError::CorrelationIdInUse`] when one of them has the same correlation id.
    pub fn push(&mut self, request: Pending<T>) -> Result<(), SessionError> {
        self.check(request.correlation_id)?;
        self.queue
            .push_back(request)
            .map_err(|_| SessionError::TooManyInFlight { capacity: N })
    }

    /// [`InFlight::push`] for a request [`InFlight::check`] passed: nothing was pushed since.
    pub(crate) fn push_checked(&mut self, request: Pending<T>) -> Result<(), SessionError> {
        self.queue
            .push_back(request)
            .map_err(|_| SessionError::TooManyInFlight { capacity: N })
    }

    /// Whether a request with `correlation_id` could be pushed now.
    ///
    /// # Errors
    ///
    /// As [`InFlight::push`].
    pub fn check(&self, correlation_id: i32) -> Result<(), SessionError> {
        if self.queue.is_full() {
            return Err(SessionError::TooManyInFlight { capacity: N });
        }
        if self.contains(correlation_id) {
            return Err(SessionError::CorrelationIdInUse(correlation_id));
        }
        Ok(())
    }

    /// The request a response with `correlation_id` answers, no longer in flight.
    ///
    /// # Errors
    ///
    /// [`SessionError::OutOfOrder`] when it is in flight but not the oldest (nothing is
    /// removed: [`InFlight::pop_oldest`] gives up on the older ones);
    /// [`SessionError::NoRequest`] when no request in flight has it.
    pub fn answer(&mut self, correlation_id: i32) -> Result<Pending<T>, SessionError> {
        match self.queue.front() {
            Some(oldest) if oldest.correlation_id == correlation_id => self
                .queue
                .pop_front()
                .ok_or(SessionError::NoRequest { correlation_id }),
            Some(oldest) if self.contains(correlation_id) => Err(SessionError::OutOfOrder {
                expected: oldest.correlation_id,
                received: correlation_id,
            }),
            _ => Err(SessionError::NoRequest { correlation_id }),
        }
    }

    /// The request a response with `correlation_id` answers, as a relay or a capture reads
    /// it: when older requests are still in flight, the broker (which answers in order) will
    /// not answer them, and each is handed to `skipped`, oldest first, and forgotten.
    ///
    /// ```
    /// use kwire::session::{InFlight, Pending, SessionError};
    /// use kwire::ApiKey;
    ///
    /// let mut waiting: InFlight<4> = InFlight::new();
    /// for id in [1, 2, 3] {
    ///     let request = Pending { correlation_id: id, api_key: ApiKey::FETCH, version: 16, tag: () };
    ///     waiting.push(request)?;
    /// }
    /// let mut lost = Vec::new();
    /// let answered = waiting.answer_skipping(3, |p| lost.push(p.correlation_id))?;
    /// assert_eq!((answered.correlation_id, lost, waiting.len()), (3, vec![1, 2], 0));
    /// # Ok::<(), SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SessionError::NoRequest`] when no request in flight has it (nothing is removed).
    pub fn answer_skipping(
        &mut self,
        correlation_id: i32,
        mut skipped: impl FnMut(Pending<T>),
    ) -> Result<Pending<T>, SessionError> {
        if !self.contains(correlation_id) {
            return Err(SessionError::NoRequest { correlation_id });
        }
        while let Some(oldest) = self.queue.pop_front() {
            if oldest.correlation_id == correlation_id {
                return Ok(oldest);
            }
            skipped(oldest);
        }
        Err(SessionError::NoRequest { correlation_id })
    }

    /// Removes the oldest request in flight: one that will not be answered.
    pub fn pop_oldest(&mut self) -> Option<Pending<T>> {
        self.queue.pop_front()
    }

    /// Removes the request with `correlation_id`, wherever it is.
    pub fn remove(&mut self, correlation_id: i32) -> Option<Pending<T>> {
        let mut found = None;
        for _ in 0..self.queue.len() {
            let Some(p) = self.queue.pop_front() else {
                break;
            };
            if found.is_none() && p.correlation_id == correlation_id {
                found = Some(p);
            } else {
                // Room was just made by the pop.
                let _ = self.queue.push_back(p);
            }
        }
        found
    }

    /// The oldest request in flight: the one the next response answers.
    #[must_use]
    pub fn oldest(&self) -> Option<&Pending<T>> {
        self.queue.front()
    }

    /// Whether a request with `correlation_id` is in flight.
    #[must_use]
    pub fn contains(&self, correlation_id: i32) -> bool {
        self.queue
            .iter()
            .any(|p| p.correlation_id == correlation_id)
    }

    /// The requests in flight, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Pending<T>> {
        self.queue.iter()
    }

    /// How many requests are in flight.
    #[must_use]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no request is in flight.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// At the end of the stream (the peer closed the connection): `Ok` when every request was
    /// answered.
    ///
    /// # Errors
    ///
    /// [`SessionError::Unanswered`], with how many requests wait and the oldest one's
    /// correlation id.
    pub fn finish(&self) -> Result<(), SessionError> {
        match self.queue.front() {
            None => Ok(()),
            Some(oldest) => Err(SessionError::Unanswered {
                requests: self.queue.len(),
                oldest: oldest.correlation_id,
            }),
        }
    }
}
