#![no_main]
use kwire_cli::capture::{self, CaptureArgs, Order, print::Show};

// The capture path end to end: pcap or pcapng bytes in, every line `kwire capture` prints (trees,
// records, lint findings) written to nowhere. It must never panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let args = CaptureArgs {
        file: "-".into(),
        ports: Vec::new(),
        show: Show {
            apis: Vec::new(),
            tree: true,
            records: true,
            lint: true,
            // Credentials shown too: the path that reveals them is read as well.
            show_secrets: true,
        },
        check: false,
        order: Order::Request,
    };
    let _ = capture::read(data, &args, &mut std::io::sink());
});
