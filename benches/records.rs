//! Record-batch benchmarks.

fn main() {}
