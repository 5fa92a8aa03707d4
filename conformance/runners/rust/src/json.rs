//! The JSON lines a runner prints (README.md, "What a runner
//! prints"), written by hand: keys in the canonical order, strings escaped as
//! the C runner does.

/// The value a step produced, if any.
pub enum Value {
    /// No value.
    None,
    /// An integer.
    Int(i64),
    /// Bytes as lower-case hex (check steps).
    Hex(String),
}

/// A JSON string literal: `"` and `\` escaped, control bytes as \u00XX,
/// everything else as is.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The line for one executed step.
pub fn step_line(
    case: &str,
    rank: i32,
    step: i64,
    op: &str,
    status: &str,
    message: &str,
    value: &Value,
) -> String {
    let mut line = format!(
        "{{\"case\":{},\"rank\":{rank},\"step\":{step},\"op\":{},\"status\":{},\"message\":{}",
        string(case),
        string(op),
        string(status),
        string(message)
    );
    match value {
        Value::None => {}
        Value::Int(v) => line.push_str(&format!(",\"value\":{v}")),
        Value::Hex(h) => line.push_str(&format!(",\"value\":{}", string(h))),
    }
    line.push('}');
    line
}

/// The header record of a case: the world communicator's `(nranks,
/// lsa_rank, lsa_size)` when it was made (status NCORE_OK), else why not.
pub fn begin_line(
    case: &str,
    rank: i32,
    status: &str,
    message: &str,
    team: Option<(i32, i32, i32)>,
) -> String {
    let mut line = format!(
        "{{\"case\":{},\"rank\":{rank},\"begin\":true,\"status\":{},\"message\":{}",
        string(case),
        string(status),
        string(message)
    );
    if let Some((nranks, lsa_rank, lsa_size)) = team {
        line.push_str(&format!(
            ",\"nranks\":{nranks},\"lsa_rank\":{lsa_rank},\"lsa_size\":{lsa_size}"
        ));
    }
    line.push('}');
    line
}

/// The end record of a case: this rank released everything the case made.
pub fn end_line(case: &str, rank: i32) -> String {
    format!("{{\"case\":{},\"rank\":{rank},\"end\":true}}", string(case))
}
