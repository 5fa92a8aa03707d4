//! Reads the line-based plan that conformance/run.py writes (README.md):
//! a header (`case`, `ranks`, `timeout_ms`), then one step per line,
//! `INDEX OP key=value ...`. No JSON is involved on the way in.

use std::collections::HashMap;

/// One step of the plan.
pub struct Step {
    /// The step's index in the case (printed back).
    pub index: i64,
    /// The operation.
    pub op: String,
    args: HashMap<String, String>,
}

impl Step {
    /// The argument's text, if given.
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args.get(key).map(String::as_str)
    }

    /// An integer argument (C `strtoll(.., 0)` rules), or `default`.
    pub fn int(&self, key: &str, default: i64) -> i64 {
        self.arg(key).map_or(default, parse_int)
    }
}

/// A whole plan.
pub struct Plan {
    /// The case name.
    pub case_name: String,
    /// Timeout for the world communicator.
    pub timeout_ms: i32,
    /// The steps this rank runs.
    pub steps: Vec<Step>,
}

/// Parses the plan file's text; `Err` names a malformed line.
pub fn parse(text: &str) -> Result<Plan, String> {
    let mut plan = Plan {
        case_name: String::new(),
        timeout_ms: 10000,
        steps: Vec::new(),
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("case ") {
            plan.case_name = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("timeout_ms ") {
            plan.timeout_ms = parse_int(rest) as i32;
        } else if line.starts_with(|c: char| c.is_ascii_digit()) {
            plan.steps.push(parse_step(line)?);
        }
    }
    Ok(plan)
}

fn parse_step(line: &str) -> Result<Step, String> {
    let mut tokens = line.split_whitespace();
    let index = parse_int(tokens.next().ok_or("empty step")?);
    let op = tokens
        .next()
        .ok_or_else(|| format!("no op: {line}"))?
        .to_string();
    let mut args = HashMap::new();
    for token in tokens {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("no '=' in {token}"))?;
        args.insert(key.to_string(), value.to_string());
    }
    Ok(Step { index, op, args })
}

/// Integer prefix of `text` as C's `strtoll(text, NULL, 0)` reads it
/// (sign, then `0x` hex, leading-0 octal or decimal); 0 when none.
pub fn parse_int(text: &str) -> i64 {
    let text = text.trim_start();
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) =
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            (16, hex)
        } else if rest.len() > 1 && rest.starts_with('0') {
            (8, &rest[1..])
        } else {
            (10, rest)
        };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let value = i64::from_str_radix(&digits[..end], radix).unwrap_or(0);
    if negative {
        -value
    } else {
        value
    }
}

/// The value of `field` in an object text `k:v,k:v`.
pub fn object_field<'a>(object: &'a str, field: &str) -> Option<&'a str> {
    object.split(',').find_map(|part| {
        part.split_once(':')
            .filter(|(k, _)| *k == field)
            .map(|(_, v)| v)
    })
}
