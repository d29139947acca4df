//! Paths every stage needs: the working directory, with an error that says so.

use std::path::PathBuf;

use crate::shared::error::{Error, Result};

/// The process's working directory.
pub fn current_dir() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| Error::io("cannot read the working directory", e))
}
