//! libFuzzer entry point for the `quic_stream` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("quic_stream")
        .expect("a known family")
        .check(data);
});
