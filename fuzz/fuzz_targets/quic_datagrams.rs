//! libFuzzer entry point for the `quic_datagrams` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("quic_datagrams")
        .expect("a known family")
        .check(data);
});
