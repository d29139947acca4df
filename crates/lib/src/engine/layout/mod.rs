//! Step 3 of a file's rewrite (`engine/pipeline.rs`): which matches become
//! edits and the text of each (`pick`): ast-grep's, or the minimal rewrite
//! (`minimal`) that keeps the original's layout, told by what the template
//! says (`reference`), the seams its patterns spell (`spelling`), the tokens of
//! the language (`lexer`), and what each capture held (`captures`).

pub(in crate::engine) mod captures;
pub(in crate::engine) mod lexer;
pub(in crate::engine) mod minimal;
pub(in crate::engine) mod pick;
pub(in crate::engine) mod reference;
pub(in crate::engine) mod spelling;
