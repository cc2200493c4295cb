#!/usr/bin/env python3
"""The README's "Using it from Rust", as written (scripts/test-rust.sh): its
rust blocks are in bindings/rust/tocsin/README.md (whose blocks cargo test
runs as doc tests), and a program made as its toml and sh blocks say (a
project beside the checkout that depends on the crate by path, the first
example as its main.rs) builds and runs. Prints what differs and exits 1."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
readme = open(os.path.join(root, "README.md")).read()
section = readme.split("## Using it from Rust\n", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.M | re.S)
crate = open(os.path.join(root, "bindings/rust/tocsin/README.md")).read()
failures = []
rust = [body for language, body in blocks if language == "rust"]
for body in rust:
    if f"```rust\n{body}```" not in crate:
        failures.append("a rust block of README.md is not in bindings/rust/tocsin/README.md: " + body.split("\n")[0])
(toml,) = [body for language, body in blocks if language == "toml"]
(shell,) = [body for language, body in blocks if language == "sh"]
work = tempfile.mkdtemp()
try:
    project = os.path.join(work, "tea")  # beside the checkout, as the README's path says
    os.makedirs(os.path.join(project, "src"))
    os.symlink(root, os.path.join(work, "tocsin"))
    with open(os.path.join(project, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "tea"\nversion = "0.1.0"\nedition = "2021"\n\n' + toml)
    with open(os.path.join(project, "src/main.rs"), "w") as f:
        f.write(rust[0])
    # The block as one shell session, in an environment without what the
    # test run sets for its own cargo (a reader has none of it).
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("PKG_CONFIG_PATH", "TOCSIN_LIB_DIR", "LD_LIBRARY_PATH", "RUSTFLAGS")}
    environment["TOCSIN"] = os.environ.get("TOCSIN_OUT_ROOT", root)
    result = subprocess.run(["bash", "-ec", shell], cwd=project, env=environment, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        failures.append(f"the README's sh block: exit {result.returncode}: {result.stderr[-2000:]}")
    elif "Tea is ready" not in result.stdout:
        failures.append(f"the program printed {result.stdout!r}, not 'Tea is ready'")
finally:
    shutil.rmtree(work)
for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
