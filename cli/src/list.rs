//! `kafka-wire list`: every API key with its versions.

use std::io::{self, Write};

use kafka_wire::api::API_TABLE;

/// Writes one row per API key: key, name, valid and flexible versions of the request and the
/// response (`none` for the keys Kafka 4.0 removed).
pub(crate) fn write(out: &mut dyn Write) -> io::Result<()> {
    let width = API_TABLE.iter().map(|i| i.name.len()).max().unwrap_or(0);
    writeln!(
        out,
        "key  {:<width$}  {:<9} {:<9} {:<9} flexible",
        "name", "request", "flexible", "response"
    )?;
    for info in API_TABLE {
        writeln!(
            out,
            "{:>3}  {:<width$}  {:<9} {:<9} {:<9} {}",
            info.key.0,
            info.name,
            info.request_versions.to_string(),
            info.request_flexible.to_string(),
            info.response_versions.to_string(),
            info.response_flexible,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_key() {
        let mut out = Vec::new();
        write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), API_TABLE.len() + 1);
        let renew = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some("RenewDelegationToken"))
            .unwrap();
        assert_eq!(
            renew.split_whitespace().collect::<Vec<_>>(),
            ["39", "RenewDelegationToken", "1-2", "2+", "1-2", "2+"]
        );
    }
}
