//! Version negotiation: the versions both sides speak, from a broker's ApiVersions response.

use heapless::Vec;

use super::ApiKey;
use crate::codec::VersionRange;
use crate::messages::ApiVersionsResponse;

/// The most API keys a [`VersionTable`] holds (Kafka assigns fewer than 100).
pub const MAX_APIS: usize = 128;

/// For each API key both sides support, the range of versions both speak.
///
/// Built from a broker's [`ApiVersionsResponse`] by intersecting each advertised range with the
/// request versions this crate knows; keys the crate does not know, or whose ranges do not
/// overlap, are left out. Fixed capacity, no allocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionTable {
    entries: Vec<(ApiKey, VersionRange), MAX_APIS>,
}

impl VersionTable {
    /// Negotiates against the `ApiKeys` of a broker's response. Entries beyond
    /// [`MAX_APIS`] are ignored; a key advertised twice keeps its first entry.
    #[must_use]
    pub fn from_response(response: &ApiVersionsResponse<'_>) -> Self {
        let mut table = Self::default();
        for advertised in response.api_keys.iter() {
            let key = ApiKey(advertised.api_key);
            let ours = key.request_versions();
            let theirs = VersionRange::new(advertised.min_version, advertised.max_version);
            let common = ours.intersect(theirs);
            if common.is_empty() || table.range(key).is_some() {
                continue;
            }
            if table.entries.push((key, common)).is_err() {
                break;
            }
        }
        table
    }

    /// The versions of `key` both sides speak.
    #[must_use]
    pub fn range(&self, key: ApiKey) -> Option<VersionRange> {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| *r)
    }

    /// The highest version of `key` both sides speak: the one to send.
    #[must_use]
    pub fn version(&self, key: ApiKey) -> Option<i16> {
        self.range(key).map(|r| r.max)
    }

    /// The negotiated keys and ranges, in the broker's order.
    pub fn iter(&self) -> impl Iterator<Item = (ApiKey, VersionRange)> + '_ {
        self.entries.iter().copied()
    }

    /// The number of negotiated keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no key was negotiated.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::api_versions_response::ApiVersion;

    #[test]
    fn intersects_with_our_versions() {
        let advertised = [
            ApiVersion::default()
                .with_api_key(0)
                .with_min_version(0)
                .with_max_version(11),
            ApiVersion::default()
                .with_api_key(1)
                .with_min_version(4)
                .with_max_version(99),
            ApiVersion::default()
                .with_api_key(4)
                .with_min_version(0)
                .with_max_version(7),
            ApiVersion::default()
                .with_api_key(999)
                .with_min_version(0)
                .with_max_version(1),
        ];
        let response = ApiVersionsResponse::default().with_api_keys((&advertised[..]).into());
        let t = VersionTable::from_response(&response);
        assert_eq!(t.range(ApiKey::PRODUCE), Some(VersionRange::new(3, 11)));
        assert_eq!(
            t.version(ApiKey::FETCH),
            Some(ApiKey::FETCH.request_versions().max)
        );
        assert_eq!(t.range(ApiKey::LEADER_AND_ISR), None);
        assert_eq!(t.range(ApiKey(999)), None);
        assert_eq!(t.len(), 2);
    }
}
