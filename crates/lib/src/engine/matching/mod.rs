//! Step 2 of a file's rewrite (`engine/pipeline.rs`): the matches. All ops on
//! the original tree in one walk (`scan`), code of other languages embedded in
//! the file (`inject`), and the matches nested in a kept edit rewritten inside
//! it when asked (`nested`).

pub(crate) mod inject;
mod script_end;
#[cfg(test)]
mod inject_prop;
pub(in crate::engine) mod nested;
pub(in crate::engine) mod scan;
