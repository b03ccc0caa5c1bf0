//! Arrays as a user meets them: indexing, the forms the message setters accept, and copying a
//! decoded array into caller storage to change it.

use kwire::codec::{Array, Decode, Element, Encode, Reader, StorageTooSmall, Str, Writer};
use kwire::frame;
use kwire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire::messages::{MetadataResponse, ResponseHeader};

/// `Array::get`, `first` and `last` agree between a caller's slice and the same elements
/// decoded from the wire, for fixed-width and variable-width elements.
#[test]
fn array_indexing_agrees_across_representations() {
    fn check<'a, T>(slice: &'a [T], buf: &'a mut [u8]) -> Array<'a, T>
    where
        T: Element<'a> + PartialEq + core::fmt::Debug,
    {
        let array = Array::from(slice);
        let mut w = Writer::new(buf);
        array.write(&mut w, 0, true);
        let n = w.position();
        let bytes: &'a [u8] = &buf[..n];
        let decoded = Array::<T>::read(&mut Reader::new(bytes), 0, true, "test").unwrap();
        assert!(decoded.as_view().is_some());
        for i in 0..=slice.len() {
            assert_eq!(decoded.get(i), slice.get(i).copied(), "index {i}");
            assert_eq!(array.get(i), slice.get(i).copied(), "index {i}");
        }
        assert_eq!(decoded.first(), slice.first().copied());
        assert_eq!(decoded.last(), slice.last().copied());
        assert_eq!(array.last(), slice.last().copied());
        decoded
    }
    let mut buf = [0u8; 256];
    check(&[7i32, -1, 1 << 20], &mut buf);
    let mut buf = [0u8; 256];
    check(&[Str::new("a"), Str::EMPTY, Str::new("three")], &mut buf);
    let mut buf = [0u8; 8];
    let empty = check::<i64>(&[], &mut buf);
    assert_eq!((empty.first(), empty.last()), (None, None));

    // The heapless the crate re-exports builds arrays without a version matched by hand.
    let mut ids: kwire::heapless::Vec<i32, 4> = kwire::heapless::Vec::new();
    ids.push(9).unwrap();
    assert_eq!(Array::from(&ids).last(), Some(9));
}

/// Every form a setter takes encodes the same bytes: a slice, a fixed array, a mutable slice, a
/// `heapless::Vec`, a `Vec`, an array decoded from the wire, and an `Array` itself.
#[test]
fn setters_accept_every_array_form() {
    let replicas = [1, 2, 3];
    let encode = |p: MetadataResponsePartition<'_>| {
        let mut buf = [0u8; 64];
        let n = p.encode(12, &mut buf).unwrap();
        buf[..n].to_vec()
    };
    let base = MetadataResponsePartition::default().with_partition_index(4);
    let expected = encode(base.with_replica_nodes(&replicas));
    assert_eq!(expected, encode(base.with_replica_nodes(&replicas[..])));
    assert_eq!(
        expected,
        encode(base.with_replica_nodes(&mut [1, 2, 3][..]))
    );
    assert_eq!(
        expected,
        encode(base.with_replica_nodes(Array::from(&replicas)))
    );
    let mut heapless: kwire::heapless::Vec<i32, 4> = kwire::heapless::Vec::new();
    heapless.extend_from_slice(&replicas).unwrap();
    assert_eq!(expected, encode(base.with_replica_nodes(&heapless)));
    #[cfg(feature = "alloc")]
    {
        let vec = replicas.to_vec();
        assert_eq!(expected, encode(base.with_replica_nodes(&vec)));
        let decoded = MetadataResponsePartition::decode_exact(&expected, 12).unwrap();
        assert_eq!(decoded.replica_nodes.to_vec(), vec);
    }
    let decoded = MetadataResponsePartition::decode_exact(&expected, 12).unwrap();
    let view = *decoded.replica_nodes.as_view().unwrap();
    assert_eq!(expected, encode(base.with_replica_nodes(view)));
}

/// `map_into` and `copy_into` fill the front of the storage in order, from a decoded array as
/// from a slice, and leave the storage untouched when it is too short.
#[test]
fn arrays_copy_into_caller_storage() {
    let names = ["a", "bb", "ccc"].map(Str::new);
    let mut buf = [0u8; 32];
    let mut w = Writer::new(&mut buf);
    Array::from(&names).write(&mut w, 0, true);
    let n = w.position();
    let decoded = Array::<Str<'_>>::read(&mut Reader::new(&buf[..n]), 0, true, "names").unwrap();

    let mut lengths = [0usize; 5];
    assert_eq!(
        decoded.map_into(&mut lengths, Str::len),
        Ok(&mut [1, 2, 3][..])
    );
    let mut storage = [Str::EMPTY; 3];
    let copied = decoded.copy_into(&mut storage).unwrap();
    copied[1] = Str::new("changed");
    assert_eq!(
        Array::from(&storage),
        Array::from(&["a", "changed", "ccc"].map(Str::new))
    );

    let mut short = [Str::new("untouched"); 2];
    let err = decoded.copy_into(&mut short).unwrap_err();
    assert_eq!(
        err,
        StorageTooSmall {
            required: 3,
            available: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "storage too small: the array has 3 elements, the storage holds 2"
    );
    assert_eq!(short, [Str::new("untouched"); 2]);
    let mut none: [Str<'_>; 0] = [];
    assert_eq!(
        Array::<Str<'_>>::default().copy_into(&mut none),
        Ok(&mut [][..])
    );
}

/// A nested array rewritten through caller storage re-encodes with the change, and everything
/// else, the arrays not replaced included, as it was read.
#[test]
fn a_nested_array_rewritten_in_a_decoded_message() {
    let replicas = [1, 2];
    let partitions = [
        MetadataResponsePartition::default()
            .with_partition_index(0)
            .with_leader_id(1)
            .with_replica_nodes(&replicas),
        MetadataResponsePartition::default()
            .with_partition_index(1)
            .with_leader_id(2)
            .with_replica_nodes(&replicas),
    ];
    let topics = [MetadataResponseTopic::default()
        .with_name(Some("events"))
        .with_partitions(&partitions)];
    let brokers = [MetadataResponseBroker::default()
        .with_node_id(1)
        .with_host("kafka-1")
        .with_port(9092)];
    let original = MetadataResponse::default()
        .with_brokers(&brokers)
        .with_topics(&topics);
    let header = ResponseHeader::default().with_correlation_id(3);
    let mut input = [0u8; 256];
    let len = frame::encode_response(&header, &original, 12, &mut input).unwrap();
    let (header, decoded) =
        frame::decode_response_as::<MetadataResponse<'_>>(&input[..len], 12).unwrap();

    // Every partition led by broker 2 is handed to broker 1.
    let topic = decoded.topics.first().unwrap();
    let mut partition_storage = [MetadataResponsePartition::default(); 4];
    let moved = topic.partitions.map_into(&mut partition_storage, |p| {
        if p.leader_id == 2 {
            p.with_leader_id(1)
        } else {
            p
        }
    });
    let topic = topic.with_partitions(&*moved.unwrap());
    let topics = [topic];
    let rewritten = decoded.with_topics(&topics);

    let mut out = [0u8; 256];
    let n = frame::encode_response(&header, &rewritten, 12, &mut out).unwrap();
    let (_, seen) = frame::decode_response_as::<MetadataResponse<'_>>(&out[..n], 12).unwrap();
    let leaders: Vec<_> = seen
        .topics
        .first()
        .unwrap()
        .partitions
        .iter()
        .map(|p| p.leader_id)
        .collect();
    assert_eq!(leaders, [1, 1]);
    assert_eq!(seen.brokers, decoded.brokers);
    // Only the leader's four bytes changed.
    assert_eq!(n, len);
    let differing: Vec<_> = (0..n).filter(|&i| out[i] != input[i]).collect();
    assert_eq!(differing.len(), 1, "{differing:?}");
}
