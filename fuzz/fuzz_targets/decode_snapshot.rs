//! libFuzzer entry point for the `decode_snapshot` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("decode_snapshot")
        .expect("a known family")
        .check(data);
});
