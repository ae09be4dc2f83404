//! Model families: which instructions and which edit tools a model is given, chosen from its
//! id. The tools themselves do not know about families; the registry offers them by family
//! ([`crate::tools::ToolRegistry::offered_specs`]) and the prompt picks the family's file
//! ([`crate::prompt::system_prompt`]).

use crate::tools::names;
use serde::Deserialize;
use std::fmt;

/// A group of models that are given the same instructions and edit tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "String")]
pub enum ModelFamily {
    /// OpenAI's GPT and o-series models (and gpt-oss): trained on `apply_patch`.
    Gpt,
    /// Anthropic's Claude models: trained on exact-string edits.
    Claude,
    /// Google's Gemini models.
    Gemini,
    /// Alibaba's Qwen models (Qwen-Coder, QwQ).
    Qwen,
    /// Everything else (Llama, Mistral, DeepSeek, GLM, ...).
    Other,
}

/// How a part of a model id is matched.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The id starts with this.
    Prefix(&'static str),
    /// The id contains this.
    Contains(&'static str),
    /// `o` followed by a digit: OpenAI's o1, o3, o4-mini, ...
    OSeries,
}

/// The pattern table, first match wins. It is applied to the lowercased id after the last
/// `/`, so `openai/gpt-5` (OpenRouter) and `hf.co/Qwen/Qwen3-Coder` (Ollama) match too.
const RULES: &[(Rule, ModelFamily)] = &[
    (Rule::Prefix("gpt-"), ModelFamily::Gpt),
    (Rule::Prefix("chatgpt"), ModelFamily::Gpt),
    (Rule::Prefix("codex"), ModelFamily::Gpt),
    (Rule::OSeries, ModelFamily::Gpt),
    (Rule::Contains("claude"), ModelFamily::Claude),
    (Rule::Contains("gemini"), ModelFamily::Gemini),
    (Rule::Contains("qwen"), ModelFamily::Qwen),
    (Rule::Contains("qwq"), ModelFamily::Qwen),
];

impl ModelFamily {
    /// Every family, in the order the docs list them.
    pub const ALL: [ModelFamily; 5] = [
        ModelFamily::Gpt,
        ModelFamily::Claude,
        ModelFamily::Gemini,
        ModelFamily::Qwen,
        ModelFamily::Other,
    ];

    /// The family of `model` by the pattern table; `Other` when nothing matches.
    pub fn from_model_id(model: &str) -> Self {
        let lower = model.trim().to_ascii_lowercase();
        let id = lower.rsplit('/').next().unwrap_or(&lower);
        RULES
            .iter()
            .find(|(rule, _)| match rule {
                Rule::Prefix(p) => id.starts_with(p),
                Rule::Contains(s) => id.contains(s),
                Rule::OSeries => {
                    let mut chars = id.chars();
                    chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit())
                }
            })
            .map_or(ModelFamily::Other, |(_, family)| *family)
    }

    /// The name used in config files and docs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gpt => "gpt",
            Self::Claude => "claude",
            Self::Gemini => "gemini",
            Self::Qwen => "qwen",
            Self::Other => "other",
        }
    }

    /// The family named `name` (as in config files).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

impl fmt::Display for ModelFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for ModelFamily {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value).ok_or_else(|| {
            format!(
                "model_family = \"{value}\" is not a model family; use one of gpt, claude, gemini, qwen, other, or remove the key to choose by model id"
            )
        })
    }
}

/// `[tools] edit`: which edit tools are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub enum EditTools {
    /// The model family's own dialect: `apply_patch` for `gpt`, `edit_file` and `write_file`
    /// for the others.
    #[default]
    Auto,
    /// `apply_patch` only, whatever the family.
    ApplyPatch,
    /// `edit_file` and `write_file`, whatever the family.
    EditFile,
    /// All three, whatever the family.
    Both,
}

impl EditTools {
    /// The name used in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::ApplyPatch => "apply_patch",
            Self::EditFile => "edit_file",
            Self::Both => "both",
        }
    }

    /// The edit tools a model of `family` is offered, in registration order.
    pub fn offered(self, family: ModelFamily) -> &'static [&'static str] {
        const PATCH: &[&str] = &[names::APPLY_PATCH];
        const EXACT: &[&str] = &[names::WRITE_FILE, names::EDIT_FILE];
        const ALL: &[&str] = &[names::WRITE_FILE, names::EDIT_FILE, names::APPLY_PATCH];
        match (self, family) {
            (Self::Auto, ModelFamily::Gpt) | (Self::ApplyPatch, _) => PATCH,
            (Self::Auto, _) | (Self::EditFile, _) => EXACT,
            (Self::Both, _) => ALL,
        }
    }
}

impl TryFrom<String> for EditTools {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        [Self::Auto, Self::ApplyPatch, Self::EditFile, Self::Both]
            .into_iter()
            .find(|e| e.as_str() == value)
            .ok_or_else(|| {
                format!(
                    "tools.edit = \"{value}\" is not an edit tool choice; use one of auto, apply_patch, edit_file, both"
                )
            })
    }
}

/// True for the tools that write files (`write_file`, `edit_file`, `apply_patch`): the ones
/// a family's edit dialect chooses among.
pub fn is_edit_tool(name: &str) -> bool {
    matches!(
        name,
        names::WRITE_FILE | names::EDIT_FILE | names::APPLY_PATCH
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_map_to_families() {
        for (id, family) in [
            ("gpt-5.1", ModelFamily::Gpt),
            ("gpt-5-codex", ModelFamily::Gpt),
            ("gpt-4.1-mini", ModelFamily::Gpt),
            ("gpt-oss:20b", ModelFamily::Gpt),
            ("o3", ModelFamily::Gpt),
            ("o4-mini", ModelFamily::Gpt),
            ("codex-mini-latest", ModelFamily::Gpt),
            ("openai/gpt-5", ModelFamily::Gpt),
            ("claude-sonnet-4-5", ModelFamily::Claude),
            ("anthropic/claude-opus-4.1", ModelFamily::Claude),
            (
                "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
                ModelFamily::Claude,
            ),
            ("gemini-2.5-pro", ModelFamily::Gemini),
            ("google/gemini-2.5-flash", ModelFamily::Gemini),
            ("qwen2.5-coder:32b", ModelFamily::Qwen),
            ("Qwen/Qwen3-Coder-480B-A35B-Instruct", ModelFamily::Qwen),
            ("qwq:32b", ModelFamily::Qwen),
            ("llama3.1:8b", ModelFamily::Other),
            ("deepseek-coder-v2", ModelFamily::Other),
            ("mock-model", ModelFamily::Other),
            ("omni-moderation", ModelFamily::Other),
            ("", ModelFamily::Other),
        ] {
            assert_eq!(ModelFamily::from_model_id(id), family, "{id}");
        }
    }

    #[test]
    fn each_family_gets_exactly_one_edit_dialect_by_default() {
        assert_eq!(
            EditTools::Auto.offered(ModelFamily::Gpt),
            [names::APPLY_PATCH]
        );
        for family in [
            ModelFamily::Claude,
            ModelFamily::Gemini,
            ModelFamily::Qwen,
            ModelFamily::Other,
        ] {
            assert_eq!(
                EditTools::Auto.offered(family),
                [names::WRITE_FILE, names::EDIT_FILE]
            );
            assert_eq!(EditTools::ApplyPatch.offered(family), [names::APPLY_PATCH]);
        }
        assert_eq!(
            EditTools::EditFile.offered(ModelFamily::Gpt),
            [names::WRITE_FILE, names::EDIT_FILE]
        );
        assert_eq!(EditTools::Both.offered(ModelFamily::Qwen).len(), 3);
    }

    #[test]
    fn names_round_trip_and_bad_names_say_what_to_write() {
        for family in ModelFamily::ALL {
            assert_eq!(ModelFamily::parse(family.as_str()), Some(family));
        }
        let err = ModelFamily::try_from("gtp".to_string()).unwrap_err();
        assert!(
            err.contains("model_family") && err.contains("gpt, claude"),
            "{err}"
        );
        let err = EditTools::try_from("patch".to_string()).unwrap_err();
        assert!(
            err.contains("tools.edit") && err.contains("apply_patch"),
            "{err}"
        );
    }
}
