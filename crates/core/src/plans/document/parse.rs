//! Parsing plan documents: strict for stored documents, tolerant of a code fence and chatter
//! around a revision the model wrote, exact about the body in both cases.

use super::super::PlanDocument;
use super::super::front_matter::{self, FrontMatter};
use super::{APPROACH, DocumentError, NOTES, SECTIONS, STEPS, parse_plan_status};
use cairn_protocol::{
    CompletionStatus, Plan, PlanCompletion, PlanStatus, PlanStep, PlanStepStatus,
};

fn at(line: usize, message: impl std::fmt::Display) -> DocumentError {
    DocumentError(format!("line {line}: {message}"))
}

fn status_for_marker(c: char) -> Option<PlanStepStatus> {
    Some(match c {
        ' ' => PlanStepStatus::Pending,
        '~' => PlanStepStatus::InProgress,
        'x' | 'X' => PlanStepStatus::Completed,
        '-' => PlanStepStatus::Skipped,
        '!' => PlanStepStatus::Failed,
        _ => return None,
    })
}

fn parse_completion_status(text: &str) -> Option<CompletionStatus> {
    [
        CompletionStatus::Success,
        CompletionStatus::PartialSuccess,
        CompletionStatus::Failed,
    ]
    .into_iter()
    .find(|s| s.as_str() == text.trim())
}

/// Parse a stored document. Front matter with `id`, `status`, `created` and `updated` is
/// required.
pub fn parse(text: &str) -> Result<PlanDocument, DocumentError> {
    let (fm, body) = front_matter::split(text).ok_or_else(|| {
        DocumentError(
            "missing front matter (a `---` block with id, title, status, created, updated)".into(),
        )
    })?;
    let first_body_line = text[..text.len() - body.len()].lines().count() + 1;
    let mut plan = parse_body(body, first_body_line)?;
    let required = |key: &str| {
        fm.get(key)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| DocumentError(format!("front matter has no `{key}`")))
    };
    plan.id = Some(required("id")?.to_string());
    plan.status = Some(parse_status_field(required("status")?)?);
    if let Some(title) = fm.get("title") {
        plan.title = Some(title.to_string());
    }
    let created = front_matter::parse_time(required("created")?).map_err(DocumentError)?;
    let updated = front_matter::parse_time(required("updated")?).map_err(DocumentError)?;
    Ok(PlanDocument {
        plan,
        created,
        updated,
        conversation: fm.get("conversation").map(str::to_string),
    })
}

fn parse_status_field(text: &str) -> Result<PlanStatus, DocumentError> {
    parse_plan_status(text).ok_or_else(|| {
        DocumentError(format!(
            "unknown status '{text}'; use draft, approved, in_progress, completed or failed"
        ))
    })
}

/// Parse a plan the model wrote (a revision): front matter optional (only its title and status
/// are read), a code fence around the document and chatter before it tolerated; the body must
/// parse exactly.
pub fn parse_revision(text: &str) -> Result<Plan, DocumentError> {
    let text = unfence(text);
    let start = text
        .lines()
        .position(|l| l.trim_end() == "---" || l.starts_with("# "))
        .ok_or_else(|| DocumentError("no `# Title` line, so this is not a plan document".into()))?;
    let text: String = text.lines().skip(start).collect::<Vec<_>>().join("\n");
    let (fm, body, first_line) = match front_matter::split(&text) {
        Some((fm, body)) => {
            let first = text[..text.len() - body.len()].lines().count() + 1;
            (fm, body, first)
        }
        None => (FrontMatter::default(), text.as_str(), 1),
    };
    let mut plan = parse_body(body, first_line)?;
    if let Some(title) = fm.get("title").filter(|t| !t.trim().is_empty()) {
        plan.title = Some(title.to_string());
    }
    if let Some(status) = fm.get("status") {
        plan.status = Some(parse_status_field(status)?);
    }
    Ok(plan)
}

/// The content of the first fenced block that holds a `## Steps` section, else `text`.
fn unfence(text: &str) -> &str {
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some(newline) = after.find('\n') else {
            break;
        };
        let inner = &after[newline + 1..];
        let Some(close) = inner.find("\n```") else {
            break;
        };
        let block = &inner[..close + 1];
        if block.lines().any(|l| l.trim_end() == STEPS) {
            return block;
        }
        rest = &inner[close + 4..];
    }
    text
}

type Lines<'a> = Vec<(usize, &'a str)>;

/// Parse a body; `first_line` is the body's first line number in the file (for messages).
fn parse_body(body: &str, first_line: usize) -> Result<Plan, DocumentError> {
    let mut preamble: Lines = Vec::new();
    let mut sections: Vec<(&str, usize, Lines)> = Vec::new();
    for (i, line) in body.lines().enumerate() {
        let number = first_line + i;
        let heading = line.trim_end();
        if SECTIONS.contains(&heading) {
            if sections.iter().any(|(name, _, _)| *name == heading) {
                return Err(at(number, format!("second `{heading}` section")));
            }
            sections.push((heading, number, Vec::new()));
        } else if let Some((_, _, lines)) = sections.last_mut() {
            lines.push((number, line));
        } else {
            preamble.push((number, line));
        }
    }
    let mut plan = Plan::default();
    let mut preamble = preamble
        .into_iter()
        .skip_while(|(_, l)| l.trim().is_empty());
    let mut objective: Vec<&str> = Vec::new();
    if let Some((_, first)) = preamble.next() {
        match first.strip_prefix("# ") {
            Some(title) => plan.title = Some(title.trim().to_string()),
            None => objective.push(first),
        }
    }
    objective.extend(preamble.map(|(_, l)| l));
    let objective = objective.join("\n");
    let objective = objective.trim();
    if !objective.is_empty() {
        plan.explanation = Some(objective.to_string());
    }
    let mut has_steps = false;
    for (name, heading_line, lines) in sections {
        match name {
            APPROACH => parse_approach(&lines, &mut plan)?,
            STEPS => {
                has_steps = true;
                plan.plan = parse_steps(&lines)?;
                if plan.plan.is_empty() {
                    return Err(at(heading_line, "the `## Steps` section lists no steps"));
                }
            }
            NOTES => {
                plan.notes = list_items(&lines, "Notes")?
                    .into_iter()
                    .map(|(_, t)| t)
                    .collect()
            }
            _ => plan.completion = Some(parse_completion(&lines, heading_line)?),
        }
    }
    if !has_steps {
        return Err(DocumentError(
            "no `## Steps` section with lines like `- [ ] 1. Do something`".into(),
        ));
    }
    Ok(plan)
}

/// Top-level `- ` items, continued on lines indented by two spaces.
fn list_items(
    lines: &[(usize, &str)],
    section: &str,
) -> Result<Vec<(usize, String)>, DocumentError> {
    let mut items: Vec<(usize, String)> = Vec::new();
    let mut blanks: Vec<&str> = Vec::new();
    for &(number, line) in lines {
        if line.trim().is_empty() {
            if !items.is_empty() {
                blanks.push(line);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
            items.push((number, rest.to_string()));
            blanks.clear();
        } else if let (Some(rest), Some((_, value))) = (line.strip_prefix("  "), items.last_mut()) {
            continue_value(value, &mut blanks, 2, rest);
        } else {
            return Err(at(
                number,
                format!("unexpected text in the {section} section: '{line}'"),
            ));
        }
    }
    Ok(items)
}

/// Append a continuation line (and the blank lines before it) to `value`.
fn continue_value(value: &mut String, blanks: &mut Vec<&str>, indent: usize, line: &str) {
    for blank in blanks.drain(..) {
        value.push('\n');
        value.push_str(blank.get(indent..).unwrap_or_default());
    }
    value.push('\n');
    value.push_str(line);
}

/// `Label: value` → `("Label", "value")`; a line without a colon is all label.
fn split_label(item: &str) -> (&str, &str) {
    let first_line = item.split('\n').next().unwrap_or_default();
    match first_line.find(':') {
        Some(colon) => (&item[..colon], item[colon + 1..].trim_start_matches(' ')),
        None => (item, ""),
    }
}

fn parse_count(line: usize, label: &str, value: &str) -> Result<u32, DocumentError> {
    value.trim().parse().map_err(|_| {
        at(
            line,
            format!("{label} must be a whole number, not '{value}'"),
        )
    })
}

fn parse_approach(lines: &[(usize, &str)], plan: &mut Plan) -> Result<(), DocumentError> {
    for (line, item) in list_items(lines, "Approach")? {
        match split_label(&item) {
            ("Verification", v) => plan.verification_approach = Some(v.to_string()),
            ("Rollback", v) => plan.rollback_strategy = Some(v.to_string()),
            ("Estimated tool calls", v) => {
                plan.estimated_tool_calls = Some(parse_count(line, "Estimated tool calls", v)?)
            }
            (label, _) => {
                return Err(at(
                    line,
                    format!(
                        "unknown Approach item '{label}'; expected Verification, Rollback or Estimated tool calls"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn parse_completion(
    lines: &[(usize, &str)],
    heading: usize,
) -> Result<PlanCompletion, DocumentError> {
    let mut status = None;
    let mut summary = None;
    let mut completion = PlanCompletion {
        status: CompletionStatus::Success,
        summary: String::new(),
        steps_completed: None,
        steps_failed: None,
        steps_skipped: None,
        issues_encountered: Vec::new(),
        recommendations: None,
    };
    for (line, item) in list_items(lines, "Completion")? {
        match split_label(&item) {
            ("Status", v) => status = Some(parse_completion_status(v).ok_or_else(|| {
                at(
                    line,
                    format!(
                        "unknown completion status '{v}'; use success, partial_success or failed"
                    ),
                )
            })?),
            ("Summary", v) => summary = Some(v.to_string()),
            ("Steps completed", v) => {
                completion.steps_completed = Some(parse_count(line, "Steps completed", v)?)
            }
            ("Steps failed", v) => {
                completion.steps_failed = Some(parse_count(line, "Steps failed", v)?)
            }
            ("Steps skipped", v) => {
                completion.steps_skipped = Some(parse_count(line, "Steps skipped", v)?)
            }
            ("Issue", v) => completion.issues_encountered.push(v.to_string()),
            ("Recommendations", v) => completion.recommendations = Some(v.to_string()),
            (label, _) => {
                return Err(at(line, format!("unknown Completion item '{label}'")));
            }
        }
    }
    completion.status =
        status.ok_or_else(|| at(heading, "the Completion section has no `- Status:`"))?;
    completion.summary =
        summary.ok_or_else(|| at(heading, "the Completion section has no `- Summary:`"))?;
    Ok(completion)
}

/// One step while its lines are read.
struct StepLines<'a> {
    step: PlanStep,
    details: Vec<(usize, String)>,
    blanks: Vec<&'a str>,
}

fn parse_steps(lines: &[(usize, &str)]) -> Result<Vec<PlanStep>, DocumentError> {
    let mut steps = Vec::new();
    let mut current: Option<StepLines> = None;
    for &(number, line) in lines {
        if line.starts_with("- [") {
            if let Some(done) = current.take() {
                steps.push(finish_step(done)?);
            }
            current = Some(StepLines {
                step: parse_step_line(number, line, steps.len())?,
                details: Vec::new(),
                blanks: Vec::new(),
            });
            continue;
        }
        let Some(building) = current.as_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(at(
                number,
                format!("expected a step like `- [ ] 1. Do something`, found '{line}'"),
            ));
        };
        if line.trim().is_empty() {
            building.blanks.push(line);
        } else if let (Some(rest), Some((_, value))) =
            (line.strip_prefix("    "), building.details.last_mut())
        {
            continue_value(value, &mut building.blanks, 4, rest);
        } else if let (Some(rest), true) =
            (line.strip_prefix("      "), building.details.is_empty())
        {
            continue_value(&mut building.step.step, &mut building.blanks, 6, rest);
        } else if let Some(rest) = line.strip_prefix("  - ") {
            building.details.push((number, rest.to_string()));
            building.blanks.clear();
        } else {
            return Err(at(
                number,
                format!(
                    "unexpected text in the Steps section: '{line}' (step details are indented `  - Label: value` lines)"
                ),
            ));
        }
    }
    if let Some(done) = current.take() {
        steps.push(finish_step(done)?);
    }
    Ok(steps)
}

/// `- [x] 3. Description` → a step; a missing number is the step's position.
fn parse_step_line(number: usize, line: &str, index: usize) -> Result<PlanStep, DocumentError> {
    let bad = || {
        at(
            number,
            format!(
                "'{line}' is not a step line; write `- [ ] 1. Do something` with one of [ ], [~], [x], [-], [!]"
            ),
        )
    };
    let rest = line.strip_prefix("- [").ok_or_else(bad)?;
    let mut chars = rest.chars();
    let marker = chars.next().ok_or_else(bad)?;
    let status = status_for_marker(marker).ok_or_else(|| {
        at(
            number,
            format!("unknown step marker [{marker}]; use [ ], [~], [x], [-] or [!]"),
        )
    })?;
    let rest = chars.as_str().strip_prefix(']').ok_or_else(bad)?;
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let (step_number, text) = match rest.split_once(". ") {
        Some((digits, text))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (digits.parse().map_err(|_| bad())?, text)
        }
        _ => (index as u32 + 1, rest),
    };
    if text.trim().is_empty() {
        return Err(at(number, format!("step {step_number} has no description")));
    }
    let mut step = PlanStep::new(text, status);
    step.number = Some(step_number);
    Ok(step)
}

fn finish_step(building: StepLines) -> Result<PlanStep, DocumentError> {
    let mut step = building.step;
    for (line, item) in building.details {
        match split_label(&item) {
            ("Tools", v) => {
                step.tools_to_use = v
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            ("Success criteria", v) => step.success_criteria = Some(v.to_string()),
            ("Depends on", v) => {
                step.depends_on = v
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| parse_count(line, "Depends on", t))
                    .collect::<Result<_, _>>()?
            }
            ("Verification step", "") => step.is_verification = true,
            ("Result", v) => step.result = Some(v.to_string()),
            ("Reason", v) => step.reason = Some(v.to_string()),
            (label, _) => {
                return Err(at(
                    line,
                    format!(
                        "unknown step detail '{label}'; expected Tools, Success criteria, Depends on, Verification step, Result or Reason"
                    ),
                ));
            }
        }
    }
    Ok(step)
}
