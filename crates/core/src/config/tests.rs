//! Loading config.toml, overrides and the environment into a [`Config`].

use super::*;

fn load(home: &Path, raw: &[&str], env: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::load_with_env(
        &ConfigOverrides {
            raw: raw.iter().map(|s| s.to_string()).collect(),
            cwd: None,
            cairn_home: Some(home.to_path_buf()),
        },
        &move |k| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()),
    )
}

#[test]
fn no_file_and_no_env_means_no_provider() {
    let home = tempfile::tempdir().unwrap();
    let config = load(home.path(), &[], &[]).unwrap();
    assert!(config.provider.is_none());
    assert_eq!(config.provider_reason, ProviderReason::NoneFound);
    assert_eq!(config.approval_policy, ApprovalPolicy::OnRequest);
    assert_eq!(config.planning, PlanningStyle::Checklist);
}

#[test]
fn openai_key_selects_openai() {
    let home = tempfile::tempdir().unwrap();
    let config = load(home.path(), &[], &[("OPENAI_API_KEY", "sk")]).unwrap();
    assert_eq!(config.provider.unwrap().id, "openai");
    assert_eq!(
        config.provider_reason,
        ProviderReason::EnvKey("OPENAI_API_KEY".into())
    );
}

#[test]
fn custom_provider_from_file_and_overrides() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "model = \"m1\"\nprovider = \"mylocal\"\n[providers.mylocal]\nwire_api = \"chat\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    let config = load(
        home.path(),
        &[
            "model=m2",
            "tools.planning=\"structured\"",
            "approval_policy=never",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(config.model, "m2");
    assert_eq!(config.planning, PlanningStyle::Structured);
    assert_eq!(config.approval_policy, ApprovalPolicy::Never);
    let provider = config.provider.unwrap();
    assert_eq!(provider.base_url, "http://127.0.0.1:9/v1");
}

#[test]
fn reasoning_effort_takes_a_level_or_a_token_budget() {
    let home = tempfile::tempdir().unwrap();
    for (raw, wanted) in [
        ("reasoning_effort=8000", "8000"),
        ("reasoning_effort=\"12000\"", "12000"),
        ("reasoning_effort=high", "high"),
    ] {
        let config = load(home.path(), &[raw], &[]).unwrap();
        assert_eq!(config.reasoning_effort.as_deref(), Some(wanted), "{raw}");
    }
    std::fs::write(home.path().join("config.toml"), "reasoning_effort = 2048\n").unwrap();
    let config = load(home.path(), &[], &[]).unwrap();
    assert_eq!(config.reasoning_effort.as_deref(), Some("2048"));
    assert_eq!(
        crate::client::anthropic::thinking_budget(config.reasoning_effort.as_deref(), 8192),
        Some(2048)
    );
}

#[test]
fn bad_file_names_path_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("config.toml");
    std::fs::write(&path, "model = \"x\"\napproval_policy = \"sometimes\"\n").unwrap();
    let err = load(home.path(), &[], &[]).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("sometimes"), "{err}");

    std::fs::write(&path, "modle = \"x\"\n").unwrap();
    let err = load(home.path(), &[], &[]).unwrap_err().to_string();
    assert!(err.contains("line 1") && err.contains("modle"), "{err}");
}

#[test]
fn model_family_and_edit_tools_are_read_and_override() {
    let home = tempfile::tempdir().unwrap();
    let config = load(home.path(), &["model=\"claude-sonnet-4-5\""], &[]).unwrap();
    assert_eq!(config.model_family, None);
    assert_eq!(config.edit_tools, EditTools::Auto);
    assert_eq!(config.family_for(&config.model), ModelFamily::Claude);

    std::fs::write(
        home.path().join("config.toml"),
        "model = \"claude-sonnet-4-5\"\nmodel_family = \"gpt\"\n[tools]\nedit = \"both\"\n",
    )
    .unwrap();
    let config = load(home.path(), &[], &[]).unwrap();
    assert_eq!(config.family_for(&config.model), ModelFamily::Gpt);
    assert_eq!(config.edit_tools, EditTools::Both);
    let config = load(home.path(), &["tools.edit=\"edit_file\""], &[]).unwrap();
    assert_eq!(config.edit_tools, EditTools::EditFile);
}

#[test]
fn bad_model_family_or_edit_choice_names_file_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("config.toml");
    std::fs::write(&path, "model = \"x\"\nmodel_family = \"gtp\"\n").unwrap();
    let err = load(home.path(), &[], &[]).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(
        err.contains("line 2") && err.contains("model_family"),
        "{err}"
    );
    assert!(err.contains("gpt, claude, gemini, qwen, other"), "{err}");

    std::fs::write(&path, "[tools]\nedit = \"patch\"\n").unwrap();
    let err = load(home.path(), &[], &[]).unwrap_err().to_string();
    assert!(
        err.contains("line 2") && err.contains("tools.edit"),
        "{err}"
    );
    assert!(err.contains("auto, apply_patch, edit_file, both"), "{err}");

    std::fs::remove_file(&path).unwrap();
    let err = load(home.path(), &["model_family=llama"], &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("model_family") && err.contains("-c overrides"),
        "{err}"
    );
}

#[test]
fn empty_cairn_home_is_ignored() {
    let config = Config::load_with_env(&ConfigOverrides::default(), &|k| {
        (k == "CAIRN_HOME").then(String::new)
    })
    .unwrap();
    assert!(
        config.plans_dir().is_absolute(),
        "{}",
        config.plans_dir().display()
    );
}

#[test]
fn zero_timeouts_are_refused_by_name() {
    let home = tempfile::tempdir().unwrap();
    let err = load(
        home.path(),
        &["provider=ollama", "providers.ollama.idle_timeout_ms=0"],
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("providers.ollama.idle_timeout_ms is 0"),
        "{err}"
    );
}

#[test]
fn bad_override_is_reported() {
    let home = tempfile::tempdir().unwrap();
    let err = load(home.path(), &["novalue"], &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid override `novalue`"), "{err}");
    let err = load(home.path(), &["provider=nope"], &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown provider `nope`"), "{err}");
}
