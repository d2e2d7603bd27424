//! The one error type of the core. Each variant is a kind that the R wrapper turns
//! into a condition class (`profile_error_<kind>`), so the variants are about what
//! went wrong for the user, not about which function noticed it.

use thiserror::Error;

pub type Result<T> = std::result::Result<T, ProfileError>;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ProfileError {
    /// The file system refused: missing file, directory, permission, failed write.
    #[error("{message}")]
    Io { message: String },

    /// The bytes are not a well-formed file of the expected format.
    /// `position` says where, e.g. "line 12" or "byte 4711".
    #[error("{}{message}", position.as_ref().map(|p| format!("{p}: ")).unwrap_or_default())]
    Format {
        position: Option<String>,
        message: String,
    },

    /// A profile object (v1 or v2) breaks a rule of the data model.
    #[error("table `{table}`, column `{column}`{}: {message}", row.map(|r| format!(", row {r}")).unwrap_or_default())]
    Invalid {
        table: String,
        column: String,
        row: Option<usize>,
        message: String,
    },

    /// A size or count is over a limit that protects memory (decompression bombs,
    /// absurd declared lengths, stack depths).
    #[error("{message}")]
    Limit { message: String },

    /// Well-formed input that this version cannot represent (e.g. a heap profile
    /// asked for as a v1 object).
    #[error("{message}")]
    Unsupported { message: String },

    /// An argument of the wrong type or value. Callers check their arguments
    /// first; this is the last line of defence (the R binding's own checks).
    #[error("{message}")]
    Argument { message: String },

    /// A state the code should never reach whatever the input: a broken
    /// invariant of this package, not of the data (a bug to report).
    #[error("internal error (please report): {message}")]
    Internal { message: String },
}

impl ProfileError {
    /// The kind, used as the suffix of the R condition class.
    pub fn kind(&self) -> &'static str {
        match self {
            ProfileError::Io { .. } => "io",
            ProfileError::Format { .. } => "format",
            ProfileError::Invalid { .. } => "invalid",
            ProfileError::Limit { .. } => "limit",
            ProfileError::Unsupported { .. } => "unsupported",
            ProfileError::Argument { .. } => "argument",
            ProfileError::Internal { .. } => "internal",
        }
    }

    pub fn io(message: impl Into<String>) -> Self {
        ProfileError::Io {
            message: message.into(),
        }
    }

    pub fn format(position: Option<String>, message: impl Into<String>) -> Self {
        ProfileError::Format {
            position,
            message: message.into(),
        }
    }

    pub fn at_line(line: usize, message: impl Into<String>) -> Self {
        ProfileError::format(Some(format!("line {line}")), message)
    }

    /// The error for `locations$inlined_into` links that lead back to where they
    /// started: one message wherever the links are followed (validation, combining,
    /// writing pprof).
    pub fn inline_cycle(row: usize, location_id: i32) -> Self {
        ProfileError::invalid(
            "locations",
            "inlined_into",
            Some(row + 1),
            format!("location {location_id} is (indirectly) inlined into itself: the links form a cycle"),
        )
    }

    pub fn invalid(
        table: &str,
        column: &str,
        row: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        ProfileError::Invalid {
            table: table.to_string(),
            column: column.to_string(),
            row,
            message: message.into(),
        }
    }

    pub fn limit(message: impl Into<String>) -> Self {
        ProfileError::Limit {
            message: message.into(),
        }
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        ProfileError::Unsupported {
            message: message.into(),
        }
    }

    pub fn argument(message: impl Into<String>) -> Self {
        ProfileError::Argument {
            message: message.into(),
        }
    }

    /// The error for a state that cannot happen (see [`ProfileError::Internal`]).
    pub fn internal(message: impl Into<String>) -> Self {
        ProfileError::Internal {
            message: message.into(),
        }
    }

    /// The same error with its message rewritten by `rewrite` (a prefix that
    /// says where, a hint added), everything else kept: the kind, and the
    /// position, table, column and row of the kinds that have them.
    pub fn map_message(mut self, rewrite: impl FnOnce(String) -> String) -> Self {
        let (ProfileError::Io { message }
        | ProfileError::Format { message, .. }
        | ProfileError::Invalid { message, .. }
        | ProfileError::Limit { message }
        | ProfileError::Unsupported { message }
        | ProfileError::Argument { message }
        | ProfileError::Internal { message }) = &mut self;
        *message = rewrite(std::mem::take(message));
        self
    }
}

impl From<std::io::Error> for ProfileError {
    fn from(e: std::io::Error) -> Self {
        ProfileError::io(e.to_string())
    }
}

#[cfg(test)]
mod tests;
