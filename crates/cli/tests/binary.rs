//! The binary itself. Having an integration test here also makes `cargo test --workspace`
//! build `target/<profile>/cairn`, which the black-box tests in `tests/` (cairn-e2e) run.

use std::process::Command;

#[test]
fn version_names_the_binary_and_its_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .arg("--version")
        .output()
        .expect("run cairn");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("cairn {}", env!("CARGO_PKG_VERSION"))
    );
}
