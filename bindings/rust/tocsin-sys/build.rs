//! Finds libtocsin.so (and, with the `notify` feature, libtocsin-notify.so)
//! for the linker: `TOCSIN_LIB_DIR` if set, else the `pkg-config` program
//! (run as a command: no crates), else the linker's default paths.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TOCSIN_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    let mut libraries = vec!["tocsin"];
    if env::var_os("CARGO_FEATURE_NOTIFY").is_some() {
        libraries.push("tocsin-notify");
    }
    let lib_dir = env::var("TOCSIN_LIB_DIR").ok().filter(|dir| !dir.is_empty());
    for library in &libraries {
        match &lib_dir {
            Some(dir) => println!("cargo:rustc-link-search=native={dir}"),
            None => match pkg_config_dirs(library) {
                Some(dirs) => {
                    for dir in dirs {
                        println!("cargo:rustc-link-search=native={dir}");
                    }
                }
                None => println!(
                    "cargo:warning=tocsin-sys: neither TOCSIN_LIB_DIR nor `pkg-config {library}` \
                     found lib{library}.so; trying the linker's default paths \
                     (build Tocsin with `make lib` and set PKG_CONFIG_PATH=out/debug/lib/pkgconfig \
                     or TOCSIN_LIB_DIR=out/debug/lib)"
                ),
            },
        }
        println!("cargo:rustc-link-lib=dylib={library}");
    }
    // DEP_TOCSIN_LIB_DIR for crates that build on this one.
    if let Some(dir) = lib_dir.or_else(|| pkg_config_dirs("tocsin").and_then(|d| d.into_iter().next())) {
        println!("cargo:lib_dir={dir}");
    }
}

/// The `-L` folders `pkg-config --libs-only-L NAME` prints, or None if the
/// program is missing or does not know the package.
fn pkg_config_dirs(name: &str) -> Option<Vec<String>> {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let output = Command::new(program).args(["--libs-only-L", name]).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    Some(
        text.split_whitespace()
            .filter_map(|flag| flag.strip_prefix("-L"))
            .map(str::to_string)
            .collect(),
    )
}
