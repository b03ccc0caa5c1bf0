//! A topic named by its name at some versions and by its id at the next
//! (`StructDef::topic_partner`): the rule on a small schema written here, and the pairs it finds
//! in the real schema set.

use kwire_codegen::spec::{Range, collect_structs, parse_message};

#[test]
fn a_name_and_an_id_whose_versions_meet_are_partners() {
    let src = r#"{ "apiKey": 90, "type": "request", "name": "PairsRequest",
        "validVersions": "0-5", "flexibleVersions": "3+", "fields": [
        { "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
            { "name": "Name", "type": "string", "versions": "0-2", "entityType": "topicName" },
            { "name": "TopicId", "type": "uuid", "versions": "3+" } ] },
        { "name": "Both", "type": "[]Both", "versions": "0+", "fields": [
            { "name": "Name", "type": "string", "versions": "0+", "entityType": "topicName" },
            { "name": "TopicId", "type": "uuid", "versions": "3+" } ] },
        { "name": "Apart", "type": "[]Apart", "versions": "0+", "fields": [
            { "name": "Name", "type": "string", "versions": "0-1", "entityType": "topicName" },
            { "name": "TopicId", "type": "uuid", "versions": "3+" } ] },
        { "name": "Other", "type": "[]Other", "versions": "0+", "fields": [
            { "name": "Group", "type": "string", "versions": "0-2", "entityType": "groupId" },
            { "name": "TopicId", "type": "uuid", "versions": "3+" } ] } ] }"#;
    let m = parse_message("PairsRequest.json", src).expect("the schema parses");
    let structs = collect_structs(&m).expect("the structs collect");
    let partners = |name: &str| {
        let s = structs
            .list
            .iter()
            .find(|s| s.name == name)
            .expect("struct");
        s.fields
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    s.topic_partner(f).map(|p| p.name.as_str()),
                    s.carried(f),
                )
            })
            .collect::<Vec<_>>()
    };
    let all = Range {
        min: 0,
        max: i16::MAX,
    };
    assert_eq!(
        partners("Topic"),
        [
            ("Name", Some("TopicId"), all),
            ("TopicId", Some("Name"), all)
        ]
    );
    // Both on the wire at once: each is a value of its own.
    let both = partners("Both");
    assert!(both.iter().all(|(_, p, _)| p.is_none()), "{both:?}");
    // A gap between them, or a name of something else: no partner.
    assert!(partners("Apart").iter().all(|(_, p, _)| p.is_none()));
    assert!(partners("Other").iter().all(|(_, p, _)| p.is_none()));
}

/// Produce and Fetch (v13), OffsetCommit and OffsetFetch (v10), TxnOffsetCommit (v6) and
/// AlterPartition (v2) switch from names to ids, requests and responses; no other API does.
#[test]
fn the_schemas_switch_from_names_to_ids_in_six_apis() {
    let messages = super::schemas();
    let mut found = Vec::new();
    for m in &messages {
        for s in collect_structs(m).expect("the structs collect").list {
            for f in &s.fields {
                if f.name == "TopicId"
                    && let Some(p) = s.topic_partner(f)
                {
                    found.push(format!("{}.{} @{}", s.path, p.name, f.versions.min));
                }
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        [
            "AlterPartitionRequest.Topics.TopicName @2",
            "AlterPartitionResponse.Topics.TopicName @2",
            "FetchRequest.ForgottenTopicsData.Topic @13",
            "FetchRequest.Topics.Topic @13",
            "FetchResponse.Responses.Topic @13",
            "OffsetCommitRequest.Topics.Name @10",
            "OffsetCommitResponse.Topics.Name @10",
            "OffsetFetchRequest.Groups.Topics.Name @10",
            "OffsetFetchResponse.Groups.Topics.Name @10",
            "ProduceRequest.TopicData.Name @13",
            "ProduceResponse.Responses.Name @13",
            "TxnOffsetCommitRequest.Topics.Name @6",
            "TxnOffsetCommitResponse.Topics.Name @6",
        ]
    );
}
