//! The opening of a connection: the ApiVersions exchange, and SASL's when the probe has a
//! login.

use super::conn::{Conn, Opening, Target};
use super::verdict::judge;
use crate::Error;

/// What the ApiVersions exchange took: the versions asked, in order, and the one answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The ApiVersions versions asked, in order: more than one when the broker refused the
    /// first.
    pub asked: Vec<i16>,
}

impl Hello {
    /// The exchange in a sentence.
    #[must_use]
    pub fn sentence(&self) -> String {
        match self.asked.as_slice() {
            [only] => format!("ApiVersions v{only} answered"),
            [first, .., last] => format!(
                "ApiVersions v{first} refused, the session fell back to v{last}, which was answered"
            ),
            [] => "no ApiVersions exchange".into(),
        }
    }
}

/// Connects and runs the ApiVersions exchange, and SASL's when the probe has a login.
pub(super) fn negotiate(target: &Target, verbose: bool) -> Result<(Conn, Hello), Error> {
    let mut conn = Conn::open(target, target.client(true, 0).map_err(Error::Failed)?)
        .map_err(Error::Failed)?;
    match conn.settle(verbose) {
        Ok(asked) => Ok((conn, Hello { asked })),
        Err(e) => Err(Error::Failed(opening_error(&e))),
    }
}

/// A fresh connection, its correlation ids starting at `next_id`, authenticated if the probe
/// has a login.
pub(super) fn reopen_conn(target: &Target, next_id: i32) -> Result<Conn, String> {
    let mut conn = Conn::open(target, target.client(false, next_id)?)?;
    if target.authenticates() {
        conn.settle(false).map_err(|e| opening_error(&e))?;
    }
    Ok(conn)
}

/// Why the session's opening failed, in a sentence.
pub(super) fn opening_error(e: &Opening) -> String {
    match e {
        Opening::Failed(why) => why.clone(),
        Opening::Reply {
            reply,
            api,
            version,
        } => format!(
            "the {} exchange failed: {}",
            api.info().map_or("?", |i| i.name),
            judge(reply, *api, *version, true).detail
        ),
    }
}
