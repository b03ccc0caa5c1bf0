//! The setters of nullable fields take what the non-nullable ones take, or `None`: a nullable
//! array is set from a slice, a fixed array, a `Vec` or a decoded array, and to null by `None`.

use kwire::codec::{Array, Decode, Encode};
use kwire::messages::MetadataRequest;
use kwire::messages::metadata_request::MetadataRequestTopic;

#[test]
fn a_nullable_array_is_set_like_a_non_nullable_one() {
    let topics = [
        MetadataRequestTopic::default().with_name(Some("a")),
        MetadataRequestTopic::default().with_name(Some("b")),
    ];
    let heapless: heapless::Vec<MetadataRequestTopic<'_>, 2> = topics.iter().copied().collect();
    let forms = [
        MetadataRequest::default().with_topics(&topics),
        MetadataRequest::default().with_topics(&topics[..]),
        MetadataRequest::default().with_topics(&heapless),
        MetadataRequest::default().with_topics(Array::from(&topics)),
        MetadataRequest::default().with_topics(Some(Array::from(&topics[..]))),
    ];
    let mut first = [0u8; 64];
    let n = forms[0].encode(12, &mut first).unwrap();
    for form in &forms {
        let mut out = [0u8; 64];
        assert_eq!(form.encode(12, &mut out), Ok(n));
        assert_eq!(out[..n], first[..n]);
    }
    #[cfg(feature = "alloc")]
    {
        let vec = topics.to_vec();
        let mut out = [0u8; 64];
        assert_eq!(
            MetadataRequest::default()
                .with_topics(&vec)
                .encode(12, &mut out),
            Ok(n)
        );
        assert_eq!(out[..n], first[..n]);
    }
    // A decoded array is set as it was read.
    let decoded = MetadataRequest::decode_exact(&first[..n], 12).unwrap();
    let copy = MetadataRequest::default().with_topics(decoded.topics);
    let mut out = [0u8; 64];
    assert_eq!(copy.encode(12, &mut out), Ok(n));
    assert_eq!(out[..n], first[..n]);

    // `None` is null: every topic, where the default's empty list asks for none.
    let all = MetadataRequest::default().with_topics(None);
    assert!(all.topics.is_none());
    // v12: a null compact array (0), auto-creation (true), authorized operations (false), no
    // tagged fields.
    assert_eq!(all.encode(12, &mut out), Ok(4));
    assert_eq!(out[..4], [0, 1, 0, 0]);
    assert!(
        MetadataRequest::default()
            .topics
            .is_some_and(|t| t.is_empty())
    );
}
