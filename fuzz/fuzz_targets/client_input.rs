//! libFuzzer entry point for the `client_input` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("client_input")
        .expect("a known family")
        .check(data);
});
