//! `ErrorCode`: every code Kafka defines, its names, retriable flags and printed forms, and
//! codes it does not define.

use kwire::ErrorCode;

#[test]
fn codes_run_from_minus_one_without_gaps() {
    let codes: Vec<i16> = ErrorCode::all().map(|c| c.0).collect();
    assert_eq!(codes, (-1..=133).collect::<Vec<i16>>());
    assert_eq!(
        ErrorCode::all().last(),
        Some(ErrorCode::SHARE_SESSION_LIMIT_REACHED)
    );
}

#[test]
fn names_round_trip() {
    for code in ErrorCode::all() {
        let name = code.name().unwrap();
        assert_eq!(ErrorCode::from_name(name), Some(code));
        assert_eq!(code.to_string(), name);
        assert!(name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        assert!(code.description().unwrap().ends_with('.'));
    }
    assert_eq!(
        ErrorCode::from_name("not_leader_or_follower"),
        Some(ErrorCode(6))
    );
    assert_eq!(ErrorCode::from_name("NOT_A_CODE"), None);
}

#[test]
fn unknown_codes_print_as_numbers() {
    for code in [
        ErrorCode(-2),
        ErrorCode(134),
        ErrorCode(i16::MAX),
        ErrorCode(i16::MIN),
    ] {
        assert_eq!(code.name(), None);
        assert_eq!(code.description(), None);
        assert!(!code.is_retriable());
        assert!(code.is_err());
        assert_eq!(code.to_string(), code.0.to_string());
        assert_eq!(format!("{code:?}"), format!("ErrorCode({})", code.0));
    }
}

#[test]
fn facts_of_some_codes() {
    assert_eq!(ErrorCode::NONE, ErrorCode(0));
    assert!(ErrorCode::NONE.is_ok() && !ErrorCode::NONE.is_err());
    assert_eq!(ErrorCode::UNKNOWN_SERVER_ERROR.0, -1);
    assert_eq!(ErrorCode::UNSUPPORTED_VERSION.0, 35);
    assert_eq!(ErrorCode::COORDINATOR_NOT_AVAILABLE.0, 15);
    assert_eq!(ErrorCode::GROUP_ID_NOT_FOUND.0, 69);
    assert_eq!(ErrorCode::UNKNOWN_TOPIC_ID.0, 100);
    let retriable = ErrorCode::all().filter(|c| c.is_retriable()).count();
    assert_eq!(retriable, 31);
    for c in [
        ErrorCode::CORRUPT_MESSAGE,
        ErrorCode::LEADER_NOT_AVAILABLE,
        ErrorCode::NOT_LEADER_OR_FOLLOWER,
        ErrorCode::REQUEST_TIMED_OUT,
        ErrorCode::COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode::NOT_ENOUGH_REPLICAS,
        ErrorCode::UNKNOWN_TOPIC_ID,
        ErrorCode::SHARE_SESSION_LIMIT_REACHED,
    ] {
        assert!(c.is_retriable(), "{c}");
    }
    for c in [
        ErrorCode::NONE,
        ErrorCode::UNKNOWN_SERVER_ERROR,
        ErrorCode::OFFSET_OUT_OF_RANGE,
        ErrorCode::TOPIC_AUTHORIZATION_FAILED,
        ErrorCode::REBALANCE_IN_PROGRESS,
        ErrorCode::CONCURRENT_TRANSACTIONS,
    ] {
        assert!(!c.is_retriable(), "{c}");
    }
}

#[test]
fn printed_forms_and_comparisons() {
    assert_eq!(
        format!("{:?}", ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
        "UNKNOWN_TOPIC_OR_PARTITION(3)"
    );
    assert_eq!(
        format!("{:#}", ErrorCode::NOT_COORDINATOR),
        "NOT_COORDINATOR (The broker is not the coordinator of this group or transaction.)"
    );
    assert_eq!(format!("{:#}", ErrorCode(999)), "999");
    // The i16 fields of generated messages compare with the constants both ways.
    let field: i16 = 27;
    assert!(field == ErrorCode::REBALANCE_IN_PROGRESS);
    assert!(ErrorCode::REBALANCE_IN_PROGRESS == field);
    assert_eq!(i16::from(ErrorCode::from(27)), 27);
}
