//! Checks every request's conversation for tool calls and tool outputs that do not pair up.
//!
//! Real servers reject a tool output that answers no call (and most reject a call left
//! unanswered), so a client that sends one has a bug even when the mock would accept it.
//! The format is recognised by the body's shape, not the path, so all three checks run on
//! every JSON request; each only looks at items of its own format.

use serde_json::Value;
use std::collections::HashSet;

/// Tracks calls made and answered while walking one request's history in order.
struct Pairing<'a> {
    prefix: String,
    calls: Vec<String>,
    answered: HashSet<String>,
    /// Calls may live in server-side state the request only refers to (Responses'
    /// `previous_response_id`), so an output without a call in the request is fine.
    outputs_may_answer_stored_calls: bool,
    violations: &'a mut Vec<String>,
}

impl<'a> Pairing<'a> {
    fn new(prefix: String, violations: &'a mut Vec<String>) -> Self {
        Self {
            prefix,
            calls: Vec::new(),
            answered: HashSet::new(),
            outputs_may_answer_stored_calls: false,
            violations,
        }
    }

    fn call(&mut self, what: &str, id: Option<&str>) {
        match id {
            Some(id) if !id.is_empty() => {
                if self.calls.iter().any(|c| c == id) {
                    self.violations.push(format!(
                        "{}: {what} id {id:?} is used by more than one call",
                        self.prefix
                    ));
                } else {
                    self.calls.push(id.to_string());
                }
            }
            _ => self
                .violations
                .push(format!("{}: {what} has no id", self.prefix)),
        }
    }

    fn output(&mut self, what: &str, id: Option<&str>) {
        let Some(id) = id.filter(|id| !id.is_empty()) else {
            self.violations
                .push(format!("{}: {what} has no call id", self.prefix));
            return;
        };
        if !self.calls.iter().any(|c| c == id) {
            if self.outputs_may_answer_stored_calls {
                return;
            }
            self.violations.push(format!(
                "{}: {what} answers {id:?}, which no earlier call in the request made",
                self.prefix
            ));
        } else if !self.answered.insert(id.to_string()) {
            self.violations.push(format!(
                "{}: {what} answers {id:?} a second time",
                self.prefix
            ));
        }
    }

    fn finish(self, what: &str) {
        for id in &self.calls {
            if !self.answered.contains(id) {
                self.violations.push(format!(
                    "{}: {what} {id:?} has no output in the request",
                    self.prefix
                ));
            }
        }
    }
}

/// The violations in one request body; `number` and `path` only label the messages.
pub(crate) fn check_request(number: usize, path: &str, body: &Value) -> Vec<String> {
    let prefix = format!("request {number} ({path})");
    let mut violations = Vec::new();
    if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        check_chat(&prefix, messages, &mut violations);
        check_anthropic(&prefix, messages, &mut violations);
    }
    if let Some(input) = body.get("input").and_then(Value::as_array) {
        let has_previous_response = body
            .get("previous_response_id")
            .is_some_and(|id| !id.is_null());
        check_responses(&prefix, input, has_previous_response, &mut violations);
    }
    violations
}

/// Chat Completions: assistant `tool_calls[].id` against `role:"tool"` `tool_call_id`.
fn check_chat(prefix: &str, messages: &[Value], violations: &mut Vec<String>) {
    let mut pairing = Pairing::new(prefix.to_string(), violations);
    for message in messages {
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let calls = message.get("tool_calls").and_then(Value::as_array);
                for call in calls.into_iter().flatten() {
                    pairing.call(
                        "assistant tool call",
                        call.get("id").and_then(Value::as_str),
                    );
                }
            }
            Some("tool") => pairing.output(
                "tool message",
                message.get("tool_call_id").and_then(Value::as_str),
            ),
            _ => {}
        }
    }
    pairing.finish("assistant tool call");
}

/// Responses API: `function_call`/`custom_tool_call` items against their `*_output` items,
/// paired by `call_id`.
fn check_responses(
    prefix: &str,
    input: &[Value],
    has_previous_response: bool,
    violations: &mut Vec<String>,
) {
    let mut pairing = Pairing::new(prefix.to_string(), violations);
    pairing.outputs_may_answer_stored_calls = has_previous_response;
    for item in input {
        let call_id = item.get("call_id").and_then(Value::as_str);
        match item.get("type").and_then(Value::as_str) {
            Some(kind @ ("function_call" | "custom_tool_call")) => pairing.call(kind, call_id),
            Some(kind @ ("function_call_output" | "custom_tool_call_output")) => {
                pairing.output(kind, call_id);
            }
            _ => {}
        }
    }
    pairing.finish("call");
}

/// Anthropic Messages: assistant `tool_use` blocks against `tool_result.tool_use_id` blocks.
fn check_anthropic(prefix: &str, messages: &[Value], violations: &mut Vec<String>) {
    let mut pairing = Pairing::new(prefix.to_string(), violations);
    for message in messages {
        let blocks = message.get("content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    pairing.call("tool_use", block.get("id").and_then(Value::as_str))
                }
                Some("tool_result") => pairing.output(
                    "tool_result",
                    block.get("tool_use_id").and_then(Value::as_str),
                ),
                _ => {}
            }
        }
    }
    pairing.finish("tool_use");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(body: Value) -> Vec<String> {
        check_request(1, "/v1/x", &body)
    }

    #[test]
    fn paired_chat_tool_call_is_clean() {
        let body = json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ]});
        assert_eq!(check(body), Vec::<String>::new());
    }

    #[test]
    fn chat_orphan_output_and_unanswered_call_are_reported() {
        let body = json!({"messages": [
            {"role": "tool", "tool_call_id": "c0", "content": "early"},
            {"role": "assistant", "tool_calls": [{"id": "c1"}, {"id": "c2"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "tool", "tool_call_id": "c1", "content": "again"},
        ]});
        assert_eq!(
            check(body),
            vec![
                "request 1 (/v1/x): tool message answers \"c0\", which no earlier call in the request made",
                "request 1 (/v1/x): tool message answers \"c1\" a second time",
                "request 1 (/v1/x): assistant tool call \"c2\" has no output in the request",
            ]
        );
    }

    #[test]
    fn responses_output_before_its_call_is_reported() {
        let body = json!({"input": [
            {"type": "function_call_output", "call_id": "a", "output": "x"},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        ]});
        let violations = check(body);
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(violations[0].contains("function_call_output answers \"a\""));
        assert!(violations[1].contains("call \"a\" has no output"));
    }

    #[test]
    fn responses_output_may_answer_a_stored_call_with_previous_response_id() {
        let body = json!({"previous_response_id": "resp_1", "input": [
            {"type": "function_call_output", "call_id": "a", "output": "x"},
        ]});
        assert!(check(body).is_empty());
    }

    #[test]
    fn anthropic_tool_result_pairs_with_tool_use() {
        let good = json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        ]});
        assert!(check(good).is_empty());
        let orphan = json!({"messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "ok"}]},
        ]});
        assert_eq!(
            check(orphan),
            vec![
                "request 1 (/v1/x): tool_result answers \"t9\", which no earlier call in the request made"
            ]
        );
    }
}
