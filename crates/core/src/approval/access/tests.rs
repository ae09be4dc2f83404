use super::*;

/// A home directory with a workspace and `$CAIRN_HOME` in it, resolved.
struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
    cairn_home: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap().join("home");
        let ws = home.join("proj");
        std::fs::create_dir_all(&ws).unwrap();
        let cairn_home = home.join(".cairn");
        Self {
            _dir: dir,
            home,
            ws,
            cairn_home,
        }
    }

    fn access_in(&self, ws: &Path, cairn_home: &Path) -> Access {
        let config = Config::for_test(cairn_home, ws);
        Access::with_places(&config, ws, Some(self.home.clone()), &[self.temp()])
    }

    /// The temporary directory the rules know (the fixture itself lives in the real one).
    fn temp(&self) -> PathBuf {
        self.home.join("scratch")
    }

    fn access(&self) -> Access {
        self.access_in(&self.ws, &self.cairn_home)
    }
}

#[test]
fn cairn_settings_are_guarded_inside_and_outside_the_workspace() {
    let f = Fixture::new();
    let access = f.access();
    assert_eq!(
        access.write_guard(&f.cairn_home.join("config.toml")),
        Some(CAIRN_SETTINGS)
    );
    assert_eq!(
        access.write_guard(&f.ws.join(".cairn/config.toml")),
        Some(CAIRN_SETTINGS)
    );
    assert_eq!(access.write_guard(&f.ws.join("src/main.rs")), None);
    // $CAIRN_HOME inside the workspace.
    let inside = f.ws.join("state");
    let access = f.access_in(&f.ws, &inside);
    assert_eq!(
        access.write_guard(&inside.join("config.toml")),
        Some(CAIRN_SETTINGS)
    );
    assert_eq!(
        access.write_guard(&inside.join("plans/x.md")),
        Some(CAIRN_SETTINGS)
    );
}

#[test]
fn every_home_dotfile_is_guarded_even_with_the_workspace_at_home() {
    let f = Fixture::new();
    for access in [f.access(), f.access_in(&f.home, &f.cairn_home)] {
        for dotfile in [
            ".cargo/env",
            ".cargo/bin/git",
            ".ssh/authorized_keys",
            ".ssh/config",
            ".bash_aliases",
            ".bashrc",
            ".profile",
            ".pam_environment",
            ".config/fish/config.fish",
            ".npmrc",
            ".local/bin/ls",
            ".gitconfig",
        ] {
            assert_eq!(
                access.write_guard(&f.home.join(dotfile)),
                Some(STARTUP_FILE),
                "{dotfile}"
            );
        }
        assert_eq!(access.write_guard(&f.home.join("notes.txt")), None);
        assert_eq!(access.write_guard(&f.home.join("proj/.env")), None);
    }
}

#[test]
fn a_workspace_inside_a_dot_directory_may_be_written() {
    let f = Fixture::new();
    let ws = f.home.join(".config/nvim");
    std::fs::create_dir_all(&ws).unwrap();
    let access = f.access_in(&ws, &f.cairn_home);
    assert_eq!(access.write_guard(&ws.join("init.lua")), None);
    // Its sibling dot directories stay guarded.
    assert_eq!(
        access.write_guard(&f.home.join(".bashrc")),
        Some(STARTUP_FILE)
    );
}

#[test]
fn a_symlink_in_the_workspace_does_not_lead_around_the_guard() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.home.join(".ssh")).unwrap();
    // $CAIRN_HOME does not exist yet: a dangling link still leads there.
    std::os::unix::fs::symlink(f.home.join(".ssh"), f.ws.join("keys")).unwrap();
    std::os::unix::fs::symlink(&f.cairn_home, f.ws.join("state")).unwrap();
    let access = f.access();
    assert_eq!(
        access.write_guard(&f.ws.join("keys/authorized_keys")),
        Some(STARTUP_FILE)
    );
    assert_eq!(
        access.write_guard(&f.ws.join("state/config.toml")),
        Some(CAIRN_SETTINGS)
    );
    assert_eq!(access.read(&f.ws.join("keys/id_rsa")), ReadAccess::Secret);
}

#[test]
fn reads_inside_readable_roots_are_free_and_outside_are_asked() {
    let f = Fixture::new();
    let outside = tempfile::tempdir_in(&f.home).unwrap();
    let access = f.access();
    assert_eq!(access.read(&f.ws.join("src/lib.rs")), ReadAccess::Free);
    assert_eq!(access.read(&f.temp().join("x")), ReadAccess::Free);
    assert_eq!(
        access.read(&f.cairn_home.join("plans/p.md")),
        ReadAccess::Free
    );
    assert_eq!(access.read(Path::new("/etc/hosts")), ReadAccess::Outside);
    assert_eq!(access.read(&outside.path().join("a")), ReadAccess::Outside);
    // A link inside the workspace to a file outside is a read outside.
    std::os::unix::fs::symlink("/etc/hosts", f.ws.join("hosts")).unwrap();
    assert_eq!(access.read(&f.ws.join("hosts")), ReadAccess::Outside);
    // Configured readable roots.
    let mut config = Config::for_test(&f.cairn_home, &f.ws);
    config.readable_roots = vec![outside.path().to_path_buf()];
    let access = Access::with_places(&config, &f.ws, Some(f.home.clone()), &[]);
    assert_eq!(access.read(&outside.path().join("a")), ReadAccess::Free);
}

#[test]
fn well_known_secrets_are_secret_wherever_the_workspace_is() {
    let f = Fixture::new();
    for access in [f.access(), f.access_in(&f.home, &f.cairn_home)] {
        for secret in [
            ".ssh/id_rsa",
            ".ssh",
            ".aws/credentials",
            ".gnupg/private-keys-v1.d/x.key",
            ".netrc",
            ".config/gh/hosts.yml",
            ".docker/config.json",
            ".cairn/config.toml",
        ] {
            assert_eq!(
                access.read(&f.home.join(secret)),
                ReadAccess::Secret,
                "{secret}"
            );
        }
        assert_eq!(access.read(Path::new("/etc/shadow")), ReadAccess::Secret);
    }
    let access = f.access();
    assert_eq!(access.read(&f.home.join("other/.env")), ReadAccess::Secret);
    assert_eq!(
        access.read(&f.home.join("other/.env.local")),
        ReadAccess::Secret
    );
    // The project's own .env is the project's.
    assert_eq!(access.read(&f.ws.join(".env")), ReadAccess::Free);
    assert_eq!(
        access.read(&f.home.join(".docker/other.json")),
        ReadAccess::Outside
    );
}
