//! libFuzzer entry point for the `wire_json` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("wire_json")
        .expect("a known family")
        .check(data);
});
