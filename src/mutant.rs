//! Deliberate faults, compiled only with `--cfg kwire_mutant`, so that a test can show that
//! each fuzz oracle catches a wrong codec (`tests/oracle_mutants.rs`). No other build has them,
//! and nothing outside that test switches them on.

use core::sync::atomic::{AtomicU8, Ordering};

/// A fault in the codec that can be switched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutant {
    /// `Writer::i32` writes the value plus one.
    WriterI32,
    /// `Writer::uvarint` writes the value with its lowest bit flipped.
    WriterUvarint,
    /// `frame::split` returns each complete frame one byte short.
    SplitShort,
    /// A v2 record's timestamp is one more than its batch and delta say.
    RecordTimestamp,
    /// A legacy message's offset is one more than its bytes say.
    LegacyOffset,
    /// The dissector's `Frame` node claims five bytes around its four-byte size.
    DissectorFrameNode,
    /// A session's requests in flight answer any response with the oldest request.
    InFlightAnyOldest,
}

impl Mutant {
    /// Every fault.
    pub const ALL: [Self; 7] = [
        Self::WriterI32,
        Self::WriterUvarint,
        Self::SplitShort,
        Self::RecordTimestamp,
        Self::LegacyOffset,
        Self::DissectorFrameNode,
        Self::InFlightAnyOldest,
    ];

    const fn code(self) -> u8 {
        match self {
            Self::WriterI32 => 1,
            Self::WriterUvarint => 2,
            Self::SplitShort => 3,
            Self::RecordTimestamp => 4,
            Self::LegacyOffset => 5,
            Self::DissectorFrameNode => 6,
            Self::InFlightAnyOldest => 7,
        }
    }
}

/// The fault switched on, by its code; 0 for none.
static ACTIVE: AtomicU8 = AtomicU8::new(0);

/// Switches `mutant` on for the whole process (`None`: every fault off).
pub fn activate(mutant: Option<Mutant>) {
    ACTIVE.store(mutant.map_or(0, Mutant::code), Ordering::SeqCst);
}

/// Whether `mutant` is on.
pub(crate) fn on(mutant: Mutant) -> bool {
    ACTIVE.load(Ordering::SeqCst) == mutant.code()
}
