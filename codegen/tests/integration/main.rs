//! The generator's integration tests, one binary (each file a module).
//! `cargo test -p kwire-codegen --test integration golden::` runs the golden tests alone.

mod brokers;
mod golden;
mod header;
mod merge;
mod notes;
mod topics;

/// Kafka's schemas beside the repository, merged as the generator merges them.
fn schemas() -> Vec<kwire_codegen::spec::Message> {
    let shared =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/kafka-schemas");
    let (messages, _) =
        kwire_codegen::load(&shared.join("message"), Some(&shared.join("message-3.9")))
            .expect("the schemas load");
    messages
}
