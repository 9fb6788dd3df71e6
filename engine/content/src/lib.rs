//! `fl-content`: the content system (work in progress).
