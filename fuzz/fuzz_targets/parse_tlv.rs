//! libFuzzer entry point for the `parse_tlv` family; the invariants live in `fl_fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fl_fuzz::Family::from_name("parse_tlv")
        .expect("a known family")
        .check(data);
});
