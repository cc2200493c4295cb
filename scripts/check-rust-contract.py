#!/usr/bin/env python3
"""tocsin-sys against the contract's manifest (bindings/contract/abi.json),
run by scripts/test-rust.sh: reads the crate's declarations from its
sources (src/lib.rs: tocsin.h; src/notify.rs, behind feature notify:
tocsin_notify.h) and checks

- every function of each header is declared, in the file of its header,
  with parameters and return type that map to the manifest's C types
  (int -> c_int, unsigned -> c_uint, double -> f64, uint64_t -> u64,
  int32_t -> i32, uint32_t -> u32, size_t -> size_t or usize, const char *
  -> *const c_char, T * -> *mut T, an alias typedef -> its name or its
  type, a struct, opaque or callback typedef -> its name);
- nothing is declared that the manifest does not have (functions,
  constants, structs, type aliases), and every declared function matches
  its library's Sources/*/exports.map;
- every enum constant, error code and define is a `pub const` of its
  header's file with the manifest's value (the expression evaluated), but
  TOCSIN_ALERT_INIT, which is tocsin_alert::new();
- each struct has the manifest's fields, names, order and types; opaque
  handles are zero-sized #[repr(C)] structs; callbacks are
  Option<unsafe extern "C" fn(...)> of the typedef's types.

Rust sources are read after cargo fmt (scripts/test-rust.sh checks it
first), but the reader depends on no layout: comments dropped, items split
at `;` and braces. Usage: check-rust-contract.py [SRC_DIR] (default
bindings/rust/tocsin-sys/src). Prints every difference; exits 1 if any."""
import ast
import fnmatch
import json
import os
import re
import sys

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
manifest = json.load(open(os.path.join(root, "bindings/contract/abi.json")))
source_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "bindings/rust/tocsin-sys/src")
FILES = {"tocsin.h": "lib.rs", "tocsin_notify.h": "notify.rs"}
EXPORTS = {"libtocsin.so": "Sources/TocsinC/exports.map", "libtocsin-notify.so": "Sources/TocsinNotifyC/exports.map"}
# C spellings of the manifest -> the Rust spellings that mean them.
PRIMITIVES = {"int": ["c_int"], "unsigned": ["c_uint"], "double": ["f64"], "uint64_t": ["u64"],
              "int32_t": ["i32"], "uint32_t": ["u32"], "size_t": ["size_t", "usize"], "char": ["c_char"],
              "void": ["c_void"]}
# Manifest items bound otherwise, with why.
NOT_CONSTANTS = {"TOCSIN_ALERT_INIT": "a brace initializer: tocsin_alert::new() in notify.rs"}
failures = []


def fail(where, text):
    failures.append(f"{where}: {text}")


if manifest.get("format") != 1:
    print(f"check-rust-contract: abi.json has format {manifest.get('format')!r}; this check reads format 1")
    sys.exit(1)


# --- reading the Rust sources -------------------------------------------------

def without_comments(text):
    """The source with // comments removed (string literals kept)."""
    out, at = [], 0
    while at < len(text):
        if text.startswith("//", at):
            at = text.find("\n", at)
            at = len(text) if at < 0 else at
        elif text[at] == '"':
            end = at + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[at:end + 1])
            at = end + 1
        else:
            out.append(text[at])
            at += 1
    return "".join(out)


def normal(text):
    """A type or expression with single spaces, none inside <>, () or around :: and *."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([<>(),:*&])\s*", r"\1", text)
    text = re.sub(r",([)>])", r"\1", text).replace(",", ", ").replace("->", " -> ")
    text = re.sub(r"\*(const|mut)(?=\S)", r"*\1 ", text)
    text = re.sub(r"(?<=\S)(fn)\(", r" \1(", text)
    for path in ("std::os::raw::", "core::ffi::", "std::ffi::", "libc::", "super::", "crate::"):
        text = text.replace(path, "")
    return re.sub(r" +", " ", text).strip()


def block_end(text, at):
    """The index after the brace matching the `{` at `at`."""
    depth = 0
    for index in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return index + 1
    raise ValueError("unbalanced braces")


def split_parameters(text):
    """`a: T, b: Option<fn(x: U, y: V)>` -> [("a", "T"), ("b", ...)], split at top-level commas."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    named = []
    for part in filter(str.strip, parts):
        name, _, kind = part.partition(":")
        named.append((name.strip(), normal(kind)))
    return named


def read_declarations(path):
    """functions {name: (params, returns)}, constants {name: (type, expr)},
    structs {name: (is_repr_c, fields)}, aliases {name: type}, and the text."""
    text = without_comments(open(path).read())
    items = {"functions": {}, "constants": {}, "structs": {}, "aliases": {}, "text": text}
    for match in re.finditer(r'extern\s+"C"\s*\{', text):
        start = match.end() - 1
        body = text[start + 1:block_end(text, start) - 1]
        for declaration in re.finditer(r"pub\s+fn\s+(\w+)\s*\((.*?)\)\s*(->\s*([^;]+))?;", body, re.S):
            name, params, _, returns = declaration.groups()
            items["functions"][name] = (split_parameters(params), normal(returns) if returns else "void")
    for match in re.finditer(r"pub\s+const\s+(\w+)\s*:\s*([^=]+?)\s*=\s*([^;]+);", text):
        items["constants"][match.group(1)] = (normal(match.group(2)), " ".join(match.group(3).split()))
    for match in re.finditer(r"((?:#\[[^\]]*\]\s*)*)pub\s+struct\s+(\w+)\s*\{", text):
        start = match.end() - 1
        body = text[start + 1:block_end(text, start) - 1]
        fields = [(name, normal(kind)) for name, kind in re.findall(r"pub\s+(\w+)\s*:\s*([^,]+),?", body)]
        items["structs"][match.group(2)] = ("repr(C)" in match.group(1).replace(" ", ""), fields,
                                            " ".join(body.split()))
    for match in re.finditer(r"pub\s+type\s+(\w+)\s*=\s*([^;]+);", text):
        items["aliases"][match.group(1)] = normal(match.group(2))
    for match in re.finditer(r"\bpub\s+(?:unsafe\s+)?(fn|static|enum|union|mod|use)\s+(\w+)", text):
        if match.group(1) == "fn" and re.search(r"impl\b[^{]*\{[^}]*$", text[:match.start()]):
            continue  # a method (tocsin_alert::new)
        if match.group(1) in ("mod", "use"):
            continue
        if not any(match.group(2) in d for d in (items["functions"],)):
            fail(os.path.basename(path), f"declares `pub {match.group(1)} {match.group(2)}`, "
                                         "which the manifest has no place for")
    return items


declared = {}
for header, file_name in FILES.items():
    path = os.path.join(source_dir, file_name)
    if not os.path.exists(path):
        fail(header, f"no {path}")
        continue
    declared[header] = read_declarations(path)
lib_text = declared.get("tocsin.h", {}).get("text", "")
if not re.search(r'#\[cfg\(feature\s*=\s*"notify"\)\]\s*mod\s+notify\s*;', lib_text):
    fail("lib.rs", 'tocsin_notify.h\'s declarations must be `#[cfg(feature = "notify")] mod notify;`')

# --- what the manifest says ---------------------------------------------------

typedefs = {t["name"]: t for t in manifest["typedefs"]}
all_aliases = {name: type_ for d in declared.values() for name, type_ in d["aliases"].items()}


def rust_spellings(c_type):
    """Every Rust spelling (normalized) that means the C type."""
    c_type = c_type.strip()
    if c_type.endswith("*"):
        inner = c_type[:-1].strip()
        const = inner.startswith("const ")
        pointee = inner[len("const "):] if const else inner
        return [f"*{'const' if const else 'mut'} {rust}" for rust in rust_spellings(pointee)]
    if c_type in PRIMITIVES:
        return PRIMITIVES[c_type]
    typedef = typedefs.get(c_type)
    if typedef is None:
        return [f"<no Rust type for C {c_type!r}>"]
    if typedef["kind"] == "alias":
        return [c_type] + rust_spellings(typedef["type"])
    return [c_type]


def check_type(where, c_type, rust_type):
    allowed = rust_spellings(c_type)
    if rust_type not in allowed:
        fail(where, f"C {c_type!r} must be {' or '.join(repr(a) for a in allowed)}, declared {rust_type!r}")


def check_signature(where, parameters, returns, rust_parameters, rust_returns):
    names = [p["name"] for p in parameters]
    if len(rust_parameters) != len(parameters):
        fail(where, f"takes {len(parameters)} parameters ({', '.join(names)}), declared with {len(rust_parameters)}")
        return
    for index, (parameter, (_, rust_type)) in enumerate(zip(parameters, rust_parameters)):
        check_type(f"{where} parameter {index + 1} ({parameter['name']})", parameter["type"], rust_type)
    if returns == "void":
        if rust_returns not in ("void", "()"):
            fail(where, f"returns void, declared -> {rust_returns}")
    else:
        check_type(f"{where} return", returns, rust_returns)


# --- functions ----------------------------------------------------------------

wanted_functions = {}
for function in manifest["functions"]:
    wanted_functions[function["name"]] = function
    items = declared.get(function["header"])
    if items is None:
        continue
    where = f"{FILES[function['header']]}: {function['name']}"
    if function["name"] not in items["functions"]:
        fail(where, f"not declared ({function['header']} has it)")
        continue
    rust_parameters, rust_returns = items["functions"][function["name"]]
    check_signature(where, function["parameters"], function["returns"], rust_parameters, rust_returns)
exports = {}
for header, info in manifest["headers"].items():
    map_text = open(os.path.join(root, EXPORTS[info["library"]])).read()
    exports[header] = re.findall(r"global:\s*([^;]+);", map_text)
for header, items in declared.items():
    for name in items["functions"]:
        if name not in wanted_functions:
            fail(f"{FILES[header]}: {name}", "declared, but not in the manifest (the library does not export it)")
        elif wanted_functions[name]["header"] != header:
            fail(f"{FILES[header]}: {name}", f"belongs to {wanted_functions[name]['header']}, declared in "
                                             f"{FILES[header]}")
        if not any(fnmatch.fnmatchcase(name, pattern.strip()) for pattern in exports[header]):
            fail(f"{FILES[header]}: {name}", f"outside {EXPORTS[manifest['headers'][header]['library']]}")

# --- typedefs and structs -----------------------------------------------------

structs = {s["name"]: s for s in manifest["structs"]}
for typedef in manifest["typedefs"]:
    items = declared.get(typedef["header"])
    if items is None:
        continue
    name, kind = typedef["name"], typedef["kind"]
    where = f"{FILES[typedef['header']]}: {name}"
    if kind == "alias":
        if name not in items["aliases"]:
            fail(where, f"not declared (a type alias of {typedef['type']})")
        else:
            check_type(where, typedef["type"], items["aliases"][name])
    elif kind == "function_pointer":
        rust = items["aliases"].get(name)
        match = re.fullmatch(r'Option<unsafe extern "C" fn\((.*)\)( -> (.+))?>', rust or "")
        if not match:
            fail(where, f'must be `Option<unsafe extern "C" fn(...)>`, declared {rust!r}')
            continue
        check_signature(where, typedef["parameters"], typedef["returns"], split_parameters(match.group(1)),
                        normal(match.group(3)) if match.group(3) else "void")
    elif kind in ("opaque", "struct"):
        if name not in items["structs"]:
            fail(where, f"not declared (a {kind} struct)")
            continue
        repr_c, fields, body = items["structs"][name]
        if not repr_c:
            fail(where, "must be #[repr(C)]")
        if kind == "opaque":
            if fields or "[u8; 0]" not in body:
                fail(where, "an opaque handle: a #[repr(C)] struct with only private zero-sized fields")
            continue
        wanted = structs[name]["fields"]
        names = [field["name"] for field in wanted]
        if [field for field, _ in fields] != names:
            fail(where, f"fields must be {', '.join(names)} in this order, declared {', '.join(f for f, _ in fields)}")
            continue
        for field, (_, rust_type) in zip(wanted, fields):
            check_type(f"{where}.{field['name']}", field["type"], rust_type)
for header, items in declared.items():
    for name in items["structs"]:
        if typedefs.get(name, {}).get("kind") not in ("opaque", "struct") or typedefs[name]["header"] != header:
            fail(f"{FILES[header]}: struct {name}", "declared, but not a struct of this header in the manifest")
    for name in items["aliases"]:
        known = typedefs.get(name, {}).get("header") == header or name in PRIMITIVES
        if not known:
            fail(f"{FILES[header]}: type {name}", "declared, but not a typedef of this header in the manifest")

# --- constants ----------------------------------------------------------------

wanted_constants = {}  # name -> (header, value, kind)
for enum in manifest["enums"]:
    for constant in enum["constants"]:
        wanted_constants[constant["name"]] = (enum["header"], constant["value"], "int")
for define in manifest["defines"]:
    wanted_constants[define["name"]] = (define["header"], define["value"], define["type"])
for error in manifest["errors"]:
    header, value, _ = wanted_constants.get(error["name"], ("tocsin.h", None, "int"))
    if value != error["value"]:
        fail(f"abi.json: {error['name']}", f"errors say {error['value']}, enums {value}")
    wanted_constants[error["name"]] = (header, error["value"], "int")
INTEGERS = {"c_int", "c_uint", "i32", "u32", "i64", "u64", "usize", "size_t"}


def evaluate(expression, known):
    """A constant's value: literals, names of earlier constants, - << | & + * and parentheses."""
    tree = ast.parse(expression.replace("_", "") if re.fullmatch(r"[\d_.]+", expression) else expression,
                     mode="eval")

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        operators = {ast.LShift: lambda a, b: a << b, ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
                     ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        raise ValueError(ast.dump(node))

    return value(tree.body)


for header, items in declared.items():
    known = {}
    for name, (rust_type, expression) in items["constants"].items():
        where = f"{FILES[header]}: {name}"
        if name not in wanted_constants:
            fail(where, "declared, but not in the manifest (no such enum constant, define or error)")
            continue
        wanted_header, wanted_value, kind = wanted_constants[name]
        if wanted_header != header:
            fail(where, f"belongs to {wanted_header}")
        try:
            got = evaluate(expression, known)
        except (ValueError, SyntaxError):
            fail(where, f"cannot evaluate `{expression}` (literals, earlier constants, - << | & + * only)")
            continue
        known[name] = got
        expected_types = {"int": INTEGERS, "double": {"f64"}, "string": {"&str", "&'static str"}}[kind]
        if rust_type not in expected_types:
            fail(where, f"a C {kind}: its type must be one of {', '.join(sorted(expected_types))}, declared {rust_type}")
        if got != wanted_value or type(got) is not type(wanted_value):
            fail(where, f"must be {wanted_value!r}, declared {got!r} (`{expression}`)")
for name, (header, _, _) in wanted_constants.items():
    if header in declared and name not in declared[header]["constants"] and name not in NOT_CONSTANTS:
        fail(f"{FILES[header]}: {name}", f"not declared ({header} has it)")
notify = declared.get("tocsin_notify.h", {}).get("text", "")
if "TOCSIN_ALERT_INIT" in wanted_constants and not re.search(r"impl\s+tocsin_alert\s*\{[^}]*pub\s+const\s+fn\s+new",
                                                                notify):
    fail("notify.rs: TOCSIN_ALERT_INIT", "must be `impl tocsin_alert { pub const fn new() ... }`")

for line in failures:
    print(f"check-rust-contract: {line}")
counted = sum(len(items["functions"]) for items in declared.values())
constants = sum(len(items["constants"]) for items in declared.values())
print(f"check-rust-contract: tocsin-sys against abi.json: {counted} functions, {constants} constants, "
      f"{len(manifest['structs'])} structs, {len(failures)} differences")
sys.exit(1 if failures else 0)
