//! libFuzzer entry point for the `flight_model` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("flight_model")
        .expect("a known family")
        .check(data);
});
