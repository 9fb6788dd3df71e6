//! libFuzzer entry point for the `toml_read` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("toml_read")
        .expect("a known family")
        .check(data);
});
