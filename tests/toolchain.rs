//! The minimum Rust version is stated once in `Cargo.toml` (`rust-version`) and repeated in the
//! README; both must agree, the toolchain running the tests must meet it, and nothing the build
//! uses may need more: the locked dependencies' own `rust-version`s, and language features
//! whose stable release is known (let-chains, 1.88). Std APIs newer than it are caught by
//! clippy's `incompatible_msrv` lint, which reads the same field.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `1.88` and `1.88.0` alike, as [major, minor, patch].
fn version(text: &str) -> Vec<u32> {
    let mut parts: Vec<u32> = text
        .trim()
        .trim_matches('"')
        .split('.')
        .map(|part| {
            part.parse()
                .unwrap_or_else(|_| panic!("bad version {text:?}"))
        })
        .collect();
    parts.resize(3, 0);
    parts
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The value of `key = "..."` in a TOML file's top-level or `[package]` lines.
fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

fn rust_version() -> Vec<u32> {
    let manifest = std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap();
    let stated = toml_value(&manifest, "rust-version").expect("rust-version in Cargo.toml");
    version(&stated)
}

#[test]
fn readme_states_the_manifest_rust_version() {
    let msrv = rust_version();
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    let stated: Vec<Vec<u32>> = readme
        .split("Rust ")
        .skip(1)
        .filter_map(|rest| {
            let (v, tail) = rest.split_once(' ')?;
            tail.starts_with("or newer")
                .then(|| version(v.trim_end_matches([',', ';'])))
        })
        .collect();
    assert_eq!(stated, vec![msrv], "README: `Rust <version> or newer`");
}

#[test]
fn the_toolchain_meets_the_rust_version() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("--version").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // `rustc 1.95.0 (hash date)`, possibly with `-nightly`.
    let number = text.split_whitespace().nth(1).unwrap();
    let installed = version(number.split('-').next().unwrap());
    assert!(
        installed >= rust_version(),
        "{text} is older than the rust-version"
    );
}

/// Where cargo unpacked the registry crates this build uses.
fn registry_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let Ok(entries) = std::fs::read_dir(home.join("registry").join("src")) else {
        return Vec::new();
    };
    entries.filter_map(|e| Some(e.ok()?.path())).collect()
}

#[test]
fn no_dependency_needs_a_newer_rust() {
    let msrv = rust_version();
    let lock = std::fs::read_to_string(manifest_dir().join("Cargo.lock")).unwrap();
    let dirs = registry_dirs();
    let mut checked = 0;
    for package in lock.split("[[package]]").skip(1) {
        let (Some(name), Some(ver)) = (toml_value(package, "name"), toml_value(package, "version"))
        else {
            continue;
        };
        // Crates for other platforms are locked but never unpacked here: not built, not checked.
        for dir in &dirs {
            let Ok(manifest) =
                std::fs::read_to_string(dir.join(format!("{name}-{ver}/Cargo.toml")))
            else {
                continue;
            };
            checked += 1;
            if let Some(needed) = toml_value(&manifest, "rust-version") {
                assert!(
                    version(&needed) <= msrv,
                    "{name} {ver} needs Rust {needed}, above the rust-version"
                );
            }
        }
    }
    assert!(checked > 0, "no dependency found in the cargo registry");
}

#[test]
fn language_features_fit_the_rust_version() {
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples"] {
        let dir = manifest_dir().join(dir);
        if dir.is_dir() {
            sources(&dir, &mut files);
        }
    }
    // Stable since 1.88: `if let ... && let ...` and `&& let` in `while`/`match` guards.
    let let_chain = files.iter().find(|f| {
        std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .any(|l| l.trim_start().starts_with("&& let ") || l.contains(" && let "))
    });
    if let Some(file) = let_chain {
        assert!(
            rust_version() >= version("1.88"),
            "{} uses let-chains, stable from Rust 1.88",
            file.display()
        );
    }
}
