//! libFuzzer entry point for the `content_defs` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("content_defs")
        .expect("a known family")
        .check(data);
});
