//! Reads a scenario file (bindings/contract/README.md, "The scenario
//! format") into checked lines, as the C runner's scenario_parse.c and the
//! Python runner's scenario_file.py do: the whole file first, every fault
//! `FILE:LINE: parse error: why`.

use std::collections::HashSet;
use std::path::Path;

pub const STATES: [&str; 5] = ["idle", "running", "suspended", "finished", "canceled"];
pub const CLOCKS: [&str; 2] = ["boot", "awake"];
pub const POLICIES: [&str; 2] = ["every", "coalesce"];
const ERRORS: [&str; 10] = [
    "OK",
    "EINVAL",
    "ENOENT",
    "ESTATE",
    "ENOMEM",
    "EIO",
    "ECORRUPT",
    "ECLOSED",
    "EUNAVAILABLE",
    "ERANGE",
];
pub const EVENT_FIELDS: [&str; 5] = ["elapsed", "remaining", "lateness", "missed", "tick"];
/// Seconds two NUMBERs may differ by and still match.
pub const TOLERANCE: f64 = 1e-6;

/// Forms as in scenario_parse.c: B binds a name, N a bound name, n NUMBER,
/// c COUNT, s STRING, f FILE, S STATE, C CLOCK, P POLICY, E ERROR, x NUMBER
/// or `none`, v EVENT, o NAME/EVENT; `*` repeats the form before it.
fn step_forms(word: &str) -> Option<&'static str> {
    Some(match word {
        "countdown" | "alarm" => "Bn",
        "stopwatch" => "B",
        "calendar" => "Bs",
        "start" | "suspend" | "resume" | "cancel" | "free" | "lap" => "N",
        "adjust" | "tick" | "leeway" | "skip-until" => "Nn",
        "tick-policy" => "NP",
        "clock" => "NC",
        "label" => "Ns",
        "skip" => "Nc",
        "advance" | "suspend-machine" | "set-wall-clock" => "n",
        "save" => "f",
        "load" => "fB*",
        "new-engine" => "",
        _ => return None,
    })
}

fn expectation_forms(word: &str) -> Option<&'static str> {
    Some(match word {
        "error" => "E",
        "result" | "now" | "wall-clock" => "n",
        "state" => "NS",
        "elapsed" | "remaining" | "duration" | "leeway" | "alarm-time" => "Nn",
        "laps" => "Nn*",
        "label" | "calendar" => "Ns",
        "clock" => "NC",
        "skipped-until" => "Nx",
        "timers" => "c",
        "events" => "Nv*",
        "order" => "o*",
        _ => return None,
    })
}

/// One line with tokens, checked.
pub struct Line {
    pub number: usize,
    pub text: String,
    pub tokens: Vec<String>,
    pub is_expect: bool,
    /// A step that an `expect error` follows (before the next step).
    pub error_checked: bool,
}

/// An EVENT token: its kind (`TOCSIN_EVENT_*`), its DETAIL if given (a
/// tick number, or a state's index), its fields.
pub struct EventSpec {
    pub kind: i32,
    pub detail: Option<f64>,
    pub fields: Vec<(String, f64)>,
}

/// A NUMBER: `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`, `nan`, `inf` or `-inf`.
pub fn number(token: &str) -> Result<f64, String> {
    match token {
        "nan" => return Ok(f64::NAN),
        "inf" => return Ok(f64::INFINITY),
        "-inf" => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    let bytes = token.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digits = |at: &mut usize| {
        let start = *at;
        while *at < bytes.len() && bytes[*at].is_ascii_digit() {
            *at += 1;
        }
        *at > start
    };
    let mut ok = digits(&mut at);
    if ok && at < bytes.len() && bytes[at] == b'.' {
        at += 1;
        ok = digits(&mut at);
    }
    if ok && at < bytes.len() && (bytes[at] == b'e' || bytes[at] == b'E') {
        at += 1;
        if at < bytes.len() && (bytes[at] == b'+' || bytes[at] == b'-') {
            at += 1;
        }
        ok = digits(&mut at);
    }
    match token.parse::<f64>() {
        Ok(value) if ok && at == bytes.len() => Ok(value),
        _ => Err(format!("'{token}' is not a NUMBER")),
    }
}

/// Whether two numbers match: within TOLERANCE; NaN only NaN; an infinity only itself.
pub fn same(got: f64, expected: f64) -> bool {
    if got.is_nan() || expected.is_nan() {
        return got.is_nan() && expected.is_nan();
    }
    if got.is_infinite() || expected.is_infinite() {
        return got == expected;
    }
    (got - expected).abs() <= TOLERANCE
}

/// `KIND[:DETAIL][,field=NUMBER]...`
pub fn event(token: &str) -> Result<EventSpec, String> {
    let bad = || format!("'{token}' is not an EVENT");
    let mut parts = token.split(',');
    let head = parts.next().unwrap_or("");
    let (kind, detail) = match head.split_once(':') {
        Some((kind, detail)) => (kind, Some(detail)),
        None => (head, None),
    };
    let kind_code = match kind {
        "tick" => 1,
        "state" => 2,
        "finish" => 3,
        _ => return Err(bad()),
    };
    let mut spec = EventSpec {
        kind: kind_code,
        detail: None,
        fields: Vec::new(),
    };
    if let Some(detail) = detail {
        spec.detail = Some(match (kind, STATES.iter().position(|state| *state == detail)) {
            ("state", Some(index)) => index as f64,
            ("tick", _) => number(detail)?,
            _ => return Err(bad()),
        });
    }
    for item in parts {
        match item.split_once('=') {
            Some((name, value)) if EVENT_FIELDS.contains(&name) => spec.fields.push((name.to_string(), number(value)?)),
            _ => return Err(bad()),
        }
    }
    Ok(spec)
}

/// A token's text and whether it was quoted.
struct Token {
    text: String,
    quoted: bool,
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let blank = |c: char| c == ' ' || c == '\t';
    let (mut tokens, mut at) = (Vec::new(), 0);
    loop {
        while at < chars.len() && blank(chars[at]) {
            at += 1;
        }
        if at == chars.len() || chars[at] == '#' {
            return Ok(tokens);
        }
        if chars[at] == '"' {
            let mut value = String::new();
            at += 1;
            loop {
                match chars.get(at) {
                    None => return Err("a quoted string is not closed".to_string()),
                    Some('"') => break,
                    Some('\\') => {
                        at += 1;
                        match chars.get(at) {
                            Some(c) if *c == '"' || *c == '\\' => value.push(*c),
                            _ => return Err("only \\\" and \\\\ are allowed in a quoted string".to_string()),
                        }
                    }
                    Some(c) => value.push(*c),
                }
                at += 1;
            }
            at += 1;
            if at < chars.len() && !blank(chars[at]) {
                return Err("a closing quote must end the token".to_string());
            }
            tokens.push(Token {
                text: value,
                quoted: true,
            });
        } else {
            let start = at;
            while at < chars.len() && !blank(chars[at]) {
                if chars[at] == '"' {
                    return Err("a quote inside a word".to_string());
                }
                at += 1;
            }
            tokens.push(Token {
                text: chars[start..at].iter().collect(),
                quoted: false,
            });
        }
    }
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().map_or(false, |c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check(token: &Token, form: char, names: &mut HashSet<String>) -> Result<(), String> {
    let text = token.text.as_str();
    if token.quoted != (form == 's') {
        return Err(if form == 's' {
            format!("'{text}' must be a quoted string")
        } else {
            format!("\"{text}\" must not be quoted")
        });
    }
    let allowed = match form {
        'B' => {
            if !is_name(text) {
                return Err(format!("'{text}' is not a timer name"));
            }
            if !names.insert(text.to_string()) {
                return Err(format!("'{text}' is bound already"));
            }
            true
        }
        'N' if !names.contains(text) => return Err(format!("no timer named '{text}'")),
        'n' => number(text).map(|_| true)?,
        'x' if text != "none" => number(text).map(|_| true)?,
        'v' => event(text).map(|_| true)?,
        'o' => {
            let (name, rest) = text
                .split_once('/')
                .ok_or_else(|| format!("'{text}' is not NAME/EVENT"))?;
            event(rest)?;
            if !names.contains(name) {
                return Err(format!("no timer named '{name}'"));
            }
            true
        }
        'c' => !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()),
        'f' => {
            !text.is_empty()
                && text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        }
        'S' => STATES.contains(&text),
        'C' => CLOCKS.contains(&text),
        'P' => POLICIES.contains(&text),
        'E' => ERRORS.contains(&text),
        _ => true,
    };
    if allowed {
        Ok(())
    } else {
        Err(format!("'{text}' is not valid here"))
    }
}

/// The checked tokens of one line, or why not; `None` for a blank line.
fn read_line(text: &str, names: &mut HashSet<String>, any_step: bool) -> Result<Option<Line>, String> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Ok(None);
    }
    let is_expect = tokens[0].text == "expect" && !tokens[0].quoted;
    let first = if is_expect { 2 } else { 1 };
    if tokens.len() < first {
        return Err("expect what?".to_string());
    }
    let word = &tokens[first - 1];
    let forms = if word.quoted {
        None
    } else if is_expect {
        expectation_forms(&word.text)
    } else {
        step_forms(&word.text)
    };
    let what = if is_expect { "expectation" } else { "step" };
    let forms = forms.ok_or_else(|| format!("unknown {what} '{}'", word.text))?;
    let repeats = forms.ends_with('*');
    let fixed: Vec<char> = forms.trim_end_matches('*').chars().collect();
    let given = &tokens[first..];
    if (repeats && given.len() + 1 < fixed.len()) || (!repeats && given.len() != fixed.len()) {
        return Err(format!(
            "'{}' takes {} arguments, got {}",
            word.text,
            fixed.len(),
            given.len()
        ));
    }
    for (at, token) in given.iter().enumerate() {
        check(token, *fixed.get(at).unwrap_or(&fixed[fixed.len() - 1]), names)?;
    }
    if is_expect && (word.text == "error" || word.text == "result") && !any_step {
        return Err(format!("'expect {}' before any step", word.text));
    }
    Ok(Some(Line {
        number: 0,
        text: text.to_string(),
        tokens: tokens.into_iter().map(|token| token.text).collect(),
        is_expect,
        error_checked: false,
    }))
}

/// Every line of the file with tokens, checked; `Err("FILE:LINE: parse
/// error: why")`, or `Err("FILE: why")` for a file that cannot be read or
/// is not UTF-8.
pub fn read(path: &Path) -> Result<Vec<Line>, String> {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let source = std::fs::read_to_string(path).map_err(|error| format!("{name}: {error}"))?;
    let mut lines: Vec<Line> = Vec::new();
    let mut names = HashSet::new();
    let mut last_step: Option<usize> = None;
    for (index, raw) in source.split('\n').enumerate() {
        let text = raw.trim_matches(|c| c == ' ' || c == '\t' || c == '\r');
        let mut line = match read_line(text, &mut names, last_step.is_some()) {
            Ok(Some(line)) => line,
            Ok(None) => continue,
            Err(why) => return Err(format!("{name}:{}: parse error: {why}", index + 1)),
        };
        line.number = index + 1;
        if !line.is_expect {
            last_step = Some(lines.len());
        } else if line.tokens[1] == "error" {
            if let Some(step) = last_step {
                lines[step].error_checked = true;
            }
        }
        lines.push(line);
    }
    Ok(lines)
}
