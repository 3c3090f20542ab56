//! Reading a rules file from disk (the engine itself never touches files).

use crate::error::Error;
use engine::Rules;
use std::path::Path;

/// The rules in `path`, or the built-in defaults when `path` is `None`.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Engine`] naming the field if it does not
/// validate.
pub fn load_rules(path: Option<&Path>) -> Result<Rules, Error> {
    let Some(path) = path else {
        return Ok(Rules::default());
    };
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    Ok(Rules::from_toml_str(&text)?)
}
