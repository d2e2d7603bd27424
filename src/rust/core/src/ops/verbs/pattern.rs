//! Regular expressions as `go tool pprof` matches them: Go's `regexp`
//! package, RE2's syntax and semantics, in linear time. The `regex` crate has
//! RE2's syntax and its linear-time matching; where its defaults differ from
//! Go's, the pattern is changed before it is compiled, and where it accepts
//! what Go refuses, the pattern is refused:
//!
//! - `\d`, `\w`, `\s` and `\b`, `\B` are ASCII in Go (`[0-9]`,
//!   `[0-9A-Za-z_]`, `[\t\n\f\r ]`), Unicode in `regex`: they become those
//!   classes (and `(?-u:\b)`). `.`, `\pL` and case-insensitive matching
//!   (`(?i)`) are Unicode in both: `.` matches a character, not a byte.
//! - Go reads `{` that does not begin a repetition (`{n}`, `{n,}`, `{n,m}`)
//!   as a literal, `[`, `&&`, `~~` and `--` inside a class as literals, and
//!   `\Q...\E` as quoted text; `regex` reads nested classes and set
//!   operations there, and has no `\Q`. These are escaped first.
//! - Go refuses back-references (`\1`), look-around (`(?=`, `(?!`, `(?<=`,
//!   `(?<!`), atomic groups, stacked repetition operators (`a**`, `a*+`),
//!   repeat counts over 1000, the flags `x`, `u` and `R`, `\u` escapes and the
//!   word boundaries `\<`, `\>`, `\b{start}`: so does [`Pattern::new`], with an
//!   error of kind `argument` that names the construct.
//!
//! A pattern is found anywhere in a text (Go's `MatchString`), and the texts
//! are matched once each: [`matching_texts`] gives one flag per text of a
//! [`StringPool`].

use crate::error::{ProfileError, Result};
use crate::model::StringPool;
use regex_syntax::ast::{
    self, Assertion, AssertionKind, Ast, ClassAscii, ClassAsciiKind, ClassBracketed, ClassPerl,
    ClassPerlKind, ClassSet, ClassSetItem, ClassSetUnion, Flag, Flags, FlagsItem, FlagsItemKind,
    Group, GroupKind, HexLiteralKind, Literal, LiteralKind, RepetitionKind, RepetitionRange,
};

/// The largest repeat count Go's `regexp` accepts (`a{1000}`).
const GO_MAX_REPEAT: u32 = 1000;

/// How deeply groups may nest (Go's parser allows 1000 levels).
const MAX_NESTING: u32 = 1000;

/// The largest compiled program, in bytes: a pattern larger than this is
/// refused rather than built (about what Go refuses, 10 MB).
const MAX_PROGRAM_BYTES: usize = 10 << 20;

/// A regular expression with Go's meaning, compiled.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: regex::Regex,
}

impl Pattern {
    /// Compiles `pattern` as Go's `regexp.Compile()` would; a pattern Go
    /// refuses (or that is too large) is an error of kind `argument`.
    pub fn new(pattern: &str) -> Result<Pattern> {
        let text = escape_go_literals(pattern);
        let mut parsed = ast::parse::ParserBuilder::new()
            .nest_limit(MAX_NESTING)
            .build()
            .parse(&text)
            .map_err(|e| parse_error(pattern, &e))?;
        to_go_semantics(&mut parsed, pattern)?;
        let mut printed = String::new();
        ast::print::Printer::new()
            .print(&parsed, &mut printed)
            .map_err(|_| refused(pattern, "cannot be compiled"))?;
        let regex = regex::RegexBuilder::new(&printed)
            .size_limit(MAX_PROGRAM_BYTES)
            .nest_limit(MAX_NESTING)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => refused(pattern, "is too large to compile"),
                other => refused(
                    pattern,
                    &format!("cannot be compiled: {}", one_line(&other)),
                ),
            })?;
        Ok(Pattern { regex })
    }

    /// Whether the pattern is found in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// One flag per slot of `texts` (id order; slot 0, NA, is false): whether
/// `pattern` is found in the text. Each distinct text is matched once.
pub fn matching_texts(texts: &StringPool, pattern: &Pattern) -> Result<Vec<bool>> {
    let slots = texts.as_slice();
    let mut out = Vec::new();
    out.try_reserve_exact(slots.len())
        .map_err(|_| ProfileError::limit("not enough memory to match the texts of the profile"))?;
    out.extend(
        slots
            .iter()
            .enumerate()
            .map(|(id, text)| id != 0 && pattern.is_match(text)),
    );
    Ok(out)
}

fn refused(pattern: &str, why: &str) -> ProfileError {
    ProfileError::argument(format!("the regular expression `{pattern}` {why}"))
}

/// A construct Go's regular expressions (RE2) do not have.
fn unsupported(pattern: &str, construct: &str) -> ProfileError {
    refused(
        pattern,
        &format!("uses {construct}, which Go's regular expressions (RE2) do not support"),
    )
}

fn one_line(e: &impl std::fmt::Display) -> String {
    let text = e.to_string();
    // regex-syntax's messages show the pattern with a caret, then the error.
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    last.trim().trim_start_matches("error: ").to_string()
}

/// The pattern (as parsed) from where the error `e` is.
fn at_error(e: &ast::Error) -> &str {
    e.pattern().get(e.span().start.offset..).unwrap_or("")
}

fn parse_error(pattern: &str, e: &ast::Error) -> ProfileError {
    match e.kind() {
        ast::ErrorKind::UnsupportedBackreference => {
            unsupported(pattern, "a back-reference (such as `\\1`)")
        }
        ast::ErrorKind::UnsupportedLookAround => unsupported(
            pattern,
            "look-around (look-ahead `(?=`, `(?!` or look-behind `(?<=`, `(?<!`)",
        ),
        ast::ErrorKind::FlagUnrecognized if at_error(e).starts_with('>') => {
            unsupported(pattern, "an atomic group (`(?>...)`)")
        }
        // Go's words for the usual mistakes
        ast::ErrorKind::GroupUnclosed => refused(pattern, "is not valid: missing closing )"),
        ast::ErrorKind::GroupUnopened => refused(pattern, "is not valid: unexpected )"),
        ast::ErrorKind::ClassUnclosed => refused(pattern, "is not valid: missing closing ]"),
        ast::ErrorKind::RepetitionMissing => refused(
            pattern,
            "is not valid: missing argument to repetition operator",
        ),
        ast::ErrorKind::EscapeUnrecognized | ast::ErrorKind::EscapeUnexpectedEof => {
            refused(pattern, "is not valid: invalid escape sequence")
        }
        _ => refused(pattern, &format!("is not valid: {}", one_line(e))),
    }
}

// ---------------------------------------------------------------------------
// Go's lexical rules, applied to the text before it is parsed.

/// `pattern` with what Go reads as literal text escaped for `regex`: the
/// text between `\Q` and `\E` (or the end); a `{` that does not begin a
/// repetition; inside a class, a `[` that does not begin `[:name:]`, and the
/// doubled `&&`, `~~`, `--` (set operators in `regex`, literals in Go).
///
/// Longer than the house's 80 lines: a scanner over the pattern's characters;
/// each arm is one construct Go reads literally and Rust's `regex` does not.
fn escape_go_literals(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.char_indices().peekable();
    let mut in_class = false;
    // Where the current class began (a `]` right after `[` or `[^` is literal).
    let mut class_start = 0;
    while let Some((at, c)) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some((_, 'Q')) if !in_class => {
                    let rest = pattern.get(at + 2..).unwrap_or("");
                    let (quoted, consumed) = match rest.find("\\E") {
                        Some(end) => (rest.get(..end).unwrap_or(""), end + 2),
                        None => (rest, rest.len()),
                    };
                    out.push_str(&regex_syntax::escape(quoted));
                    while chars.peek().is_some_and(|&(i, _)| i < at + 2 + consumed) {
                        chars.next();
                    }
                }
                Some((_, next)) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
            continue;
        }
        if in_class {
            let first = at == class_start;
            match c {
                ']' if !first => in_class = false,
                '[' => {
                    let rest = pattern.get(at..).unwrap_or("");
                    let posix = rest.starts_with("[:")
                        && rest.get(2..).and_then(|r| r.find(":]")).is_some();
                    if posix {
                        let end = rest
                            .get(2..)
                            .and_then(|r| r.find(":]"))
                            .map_or(0, |e| e + 4);
                        out.push_str(rest.get(..end).unwrap_or(""));
                        while chars.peek().is_some_and(|&(i, _)| i < at + end) {
                            chars.next();
                        }
                        continue;
                    }
                    out.push_str("\\[");
                    continue;
                }
                '&' | '~' | '-' if chars.peek().is_some_and(|&(_, n)| n == c) && c != '-' => {
                    out.push('\\');
                    out.push(c);
                    continue;
                }
                '-' if chars.peek().is_some_and(|&(_, n)| n == '-') => {
                    // `x--y` is a range from x to `-` in Go's reading
                    out.push('-');
                    chars.next();
                    out.push_str("\\-");
                    continue;
                }
                _ => {}
            }
            out.push(c);
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                class_start = at + 1;
                if let Some(&(i, '^')) = chars.peek() {
                    out.push('^');
                    chars.next();
                    class_start = i + 1;
                }
            }
            '{' if !begins_repetition(pattern.get(at..).unwrap_or("")) => out.push_str("\\{"),
            _ => out.push(c),
        }
    }
    out
}

/// Whether `text` (starting at a `{`) begins a repetition as Go reads one:
/// `{n}`, `{n,}` or `{n,m}`, with decimal numbers.
fn begins_repetition(text: &str) -> bool {
    let Some(inner) = text
        .strip_prefix('{')
        .and_then(|t| t.split_once('}'))
        .map(|(i, _)| i)
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match inner.split_once(',') {
        None => digits(inner),
        Some((min, max)) => digits(min) && (max.is_empty() || digits(max)),
    }
}

// ---------------------------------------------------------------------------
// Go's semantics, applied to the parsed pattern.

/// Rewrites `ast` so that `regex` means by it what Go means (ASCII Perl
/// classes and word boundaries), refusing what Go refuses.
///
/// Longer than the house's 80 lines: a walk of the pattern's syntax tree;
/// each arm is one kind of node, whose meaning in Go and in `regex` it settles.
fn to_go_semantics(ast: &mut Ast, pattern: &str) -> Result<()> {
    match ast {
        Ast::Empty(_) | Ast::Dot(_) | Ast::ClassUnicode(_) => Ok(()),
        Ast::Literal(lit) => check_literal(lit, pattern),
        Ast::Flags(set) => check_flags(&set.flags, pattern),
        Ast::ClassPerl(perl) => {
            let class = ascii_perl_class(perl);
            *ast = Ast::class_bracketed(class);
            Ok(())
        }
        Ast::ClassBracketed(class) => class_to_go(class, pattern),
        Ast::Assertion(assertion) => match assertion.kind {
            AssertionKind::WordBoundary | AssertionKind::NotWordBoundary => {
                let span = assertion.span;
                let inner = Ast::assertion(Assertion {
                    span,
                    kind: assertion.kind.clone(),
                });
                *ast = Ast::group(Group {
                    span,
                    kind: GroupKind::NonCapturing(Flags {
                        span,
                        items: vec![
                            FlagsItem {
                                span,
                                kind: FlagsItemKind::Negation,
                            },
                            FlagsItem {
                                span,
                                kind: FlagsItemKind::Flag(Flag::Unicode),
                            },
                        ],
                    }),
                    ast: Box::new(inner),
                });
                Ok(())
            }
            AssertionKind::WordBoundaryStart
            | AssertionKind::WordBoundaryEnd
            | AssertionKind::WordBoundaryStartAngle
            | AssertionKind::WordBoundaryEndAngle
            | AssertionKind::WordBoundaryStartHalf
            | AssertionKind::WordBoundaryEndHalf => Err(unsupported(
                pattern,
                "a word boundary such as `\\<`, `\\>` or `\\b{start}`",
            )),
            _ => Ok(()),
        },
        Ast::Repetition(rep) => {
            if matches!(*rep.ast, Ast::Repetition(_)) {
                return Err(unsupported(
                    pattern,
                    "a repetition operator right after another (such as `a**`, or the possessive `a*+`)",
                ));
            }
            if let RepetitionKind::Range(range) = &rep.op.kind {
                let largest = match range {
                    RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n) => *n,
                    RepetitionRange::Bounded(m, n) => (*m).max(*n),
                };
                if largest > GO_MAX_REPEAT {
                    return Err(refused(
                        pattern,
                        &format!("repeats more than {GO_MAX_REPEAT} times, which Go's regular expressions refuse"),
                    ));
                }
            }
            to_go_semantics(&mut rep.ast, pattern)
        }
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(flags) = &group.kind {
                check_flags(flags, pattern)?;
            }
            to_go_semantics(&mut group.ast, pattern)
        }
        Ast::Alternation(alt) => alt
            .asts
            .iter_mut()
            .try_for_each(|a| to_go_semantics(a, pattern)),
        Ast::Concat(concat) => concat
            .asts
            .iter_mut()
            .try_for_each(|a| to_go_semantics(a, pattern)),
    }
}

/// Go knows the flags `i`, `m`, `s` and `U` only.
fn check_flags(flags: &Flags, pattern: &str) -> Result<()> {
    for item in &flags.items {
        let name = match item.kind {
            FlagsItemKind::Flag(Flag::IgnoreWhitespace) => "x",
            FlagsItemKind::Flag(Flag::Unicode) => "u",
            FlagsItemKind::Flag(Flag::CRLF) => "R",
            _ => continue,
        };
        return Err(unsupported(pattern, &format!("the flag `{name}`")));
    }
    Ok(())
}

/// Go has no `\u` escapes (`\x{...}` instead).
fn check_literal(lit: &Literal, pattern: &str) -> Result<()> {
    match lit.kind {
        LiteralKind::HexFixed(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong)
        | LiteralKind::HexBrace(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong) => Err(
            unsupported(pattern, "a `\\u` or `\\U` escape (write `\\x{...}`)"),
        ),
        _ => Ok(()),
    }
}

/// A bracketed class: Perl classes in it become ASCII ones.
fn class_to_go(class: &mut ClassBracketed, pattern: &str) -> Result<()> {
    match &mut class.kind {
        ClassSet::Item(item) => item_to_go(item, pattern),
        // `&&`, `~~`, `--` were escaped: `regex` sees no set operation.
        ClassSet::BinaryOp(_) => Err(refused(
            pattern,
            "cannot be compiled: a class set operation",
        )),
    }
}

fn item_to_go(item: &mut ClassSetItem, pattern: &str) -> Result<()> {
    match item {
        ClassSetItem::Perl(perl) => {
            let class = ascii_perl_class(perl);
            *item = ClassSetItem::Bracketed(Box::new(class));
            Ok(())
        }
        ClassSetItem::Literal(lit) => check_literal(lit, pattern),
        ClassSetItem::Range(range) => {
            check_literal(&range.start, pattern)?;
            check_literal(&range.end, pattern)
        }
        ClassSetItem::Bracketed(inner) => class_to_go(inner, pattern),
        ClassSetItem::Union(union) => union
            .items
            .iter_mut()
            .try_for_each(|i| item_to_go(i, pattern)),
        ClassSetItem::Empty(_) | ClassSetItem::Ascii(_) | ClassSetItem::Unicode(_) => Ok(()),
    }
}

/// Go's ASCII meaning of a Perl class: `\d` = `[0-9]`, `\w` = `[0-9A-Za-z_]`,
/// `\s` = `[\t\n\f\r ]` (no vertical tab), negated for `\D`, `\W`, `\S`.
fn ascii_perl_class(perl: &ClassPerl) -> ClassBracketed {
    let span = perl.span;
    let ascii = |kind| {
        ClassSetItem::Ascii(ClassAscii {
            span,
            kind,
            negated: false,
        })
    };
    let items = match perl.kind {
        ClassPerlKind::Digit => vec![ascii(ClassAsciiKind::Digit)],
        ClassPerlKind::Word => vec![ascii(ClassAsciiKind::Word)],
        ClassPerlKind::Space => ['\t', '\n', '\x0C', '\r', ' ']
            .into_iter()
            .map(|c| {
                ClassSetItem::Literal(Literal {
                    span,
                    kind: LiteralKind::Verbatim,
                    c,
                })
            })
            .collect(),
    };
    ClassBracketed {
        span,
        negated: perl.negated,
        kind: ClassSet::Item(ClassSetItem::Union(ClassSetUnion { span, items })),
    }
}

#[cfg(test)]
mod tests;
