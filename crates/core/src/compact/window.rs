//! The context windows of common models, so compaction knows when a request will not fit.
//! `model_context_window` in config.toml overrides the table.

/// Known windows, matched by the start of the model id (first match wins, so longer
/// prefixes come first). Figures are the providers' published input windows.
const WINDOWS: &[(&str, u64)] = &[
    ("gpt-5", 272_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("codex-", 272_000),
    ("claude-", 200_000),
    ("gemini-", 1_048_576),
    ("qwen3-coder", 262_144),
    ("qwen3", 131_072),
    ("qwen2.5-coder", 32_768),
    ("qwen", 32_768),
    ("deepseek", 128_000),
    ("llama3", 128_000),
    ("llama-3", 128_000),
    ("mistral", 128_000),
    ("codestral", 256_000),
    ("devstral", 128_000),
    ("gpt-oss", 131_072),
];

/// The context window of `model` in tokens: `configured` if set, else the table (provider
/// prefixes such as `openai/` or `anthropic/` are ignored), else `None`.
pub fn context_window(model: &str, configured: Option<u64>) -> Option<u64> {
    if configured.is_some() {
        return configured;
    }
    let lower = model.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    WINDOWS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, window)| *window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_and_overrides() {
        assert_eq!(context_window("gpt-5.1", None), Some(272_000));
        assert_eq!(context_window("gpt-4o-mini", None), Some(128_000));
        assert_eq!(
            context_window("anthropic/claude-sonnet-4-5", None),
            Some(200_000)
        );
        assert_eq!(context_window("qwen2.5-coder-32b", None), Some(32_768));
        assert_eq!(context_window("my-finetune", None), None);
        assert_eq!(context_window("gpt-5.1", Some(9_000)), Some(9_000));
    }
}
