"""Reads one of Tocsin's C headers into the manifest's parts (functions,
typedefs, structs, enums, defines, errors) for scripts/gen-contract.py.

Not a C parser: it knows the forms these two headers use (TOCSIN_EXTERN
prototypes, anonymous enums, `typedef struct x {...} x;`, function-pointer
typedefs, the TOCSIN_ERRNO_MAP X-macro) and fails loudly on what it does
not understand, so a new form in a header cannot be dropped silently."""
import ast
import re


class HeaderError(Exception):
    pass


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def c_type(text: str) -> str:
    """One spelling per type: single spaces, `*` after a space, `**` together."""
    text = " ".join(text.split())
    text = re.sub(r"\s*\*\s*", " *", text)
    return text.replace("* *", "**").strip()


def declaration(text: str) -> dict:
    """"const char *spec" -> {"name": "spec", "type": "const char *"}."""
    match = re.fullmatch(r"(.*?)(\w+)", " ".join(text.split()))
    if not match or not match.group(1).strip():
        raise HeaderError(f"cannot read the declaration '{text.strip()}'")
    return {"name": match.group(2), "type": c_type(match.group(1))}


def parameters(text: str) -> list:
    text = " ".join(text.split())
    return [] if text in ("void", "") else [declaration(part) for part in text.split(",")]


def evaluate(expression: str, known: dict) -> int:
    """An integer constant expression of literals, known names, ( ) << | + -."""
    tree = ast.parse(" ".join(expression.split()), mode="eval")
    operators = {ast.LShift: lambda a, b: a << b, ast.BitOr: lambda a, b: a | b,
                 ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        raise HeaderError(f"cannot evaluate '{expression.strip()}'")
    return value(tree.body)


def parse_header(text: str, header: str) -> dict:
    text = text.replace("\\\n", " ")  # macro continuation lines
    errors = [{"name": f"TOCSIN_{name}", "value": int(code), "text": message}
              for name, code, message in re.findall(r'XX\((\w+),\s*(-?\d+),\s*"([^"]*)"\)', text)]
    if errors:  # the table's frame: 0 and any other value (tocsin.h: tocsin_strerror, tocsin_err_name)
        if '"success" for 0' not in text or '"TOCSIN_UNKNOWN" otherwise' not in text:
            raise HeaderError("the words for status 0 and unknown codes moved: update contract_header.py")
        errors = [{"name": "TOCSIN_OK", "value": 0, "text": "success"}] + errors
    plain = strip_comments(text)
    known: dict = {}
    defines = []
    for name, value in re.findall(r"^\s*#define\s+(\w+)[ \t]+(.+?)\s*$", plain, flags=re.M):
        if name == "TOCSIN_EXTERN" or name.startswith("TOCSIN_XX_"):
            continue
        if value.startswith('"'):
            defines.append({"name": name, "header": header, "type": "string", "value": ast.literal_eval(value)})
        elif re.fullmatch(r"-?\d+\.\d*", value):
            defines.append({"name": name, "header": header, "type": "double", "value": float(value)})
        elif value.startswith("{"):
            defines.append({"name": name, "header": header, "type": "initializer", "value": " ".join(value.split())})
        else:
            known[name] = evaluate(value, known)
            defines.append({"name": name, "header": header, "type": "int", "value": known[name]})
    body = re.sub(r"^[ \t]*#.*$", "", plain, flags=re.M)  # the preprocessor lines are read above
    body = body.replace("TOCSIN_ERRNO_MAP(TOCSIN_XX_)", ",".join(f"{e['name']} = {e['value']}" for e in errors[1:]))

    enums = []
    for match in re.finditer(r"\benum\s*\{(.*?)\}\s*;", body, flags=re.S):
        about = comment_before(text, body, match.start())
        constants, following = [], 0
        for item in (part.strip() for part in match.group(1).split(",")):
            if not item:
                continue
            name, _, expression = item.partition("=")
            name = name.strip()
            following = evaluate(expression, known) if expression else following
            known[name] = following
            constants.append({"name": name, "value": following})
            following += 1
        enums.append({"header": header, "about": about, "constants": constants})

    functions = []
    for head, arguments in re.findall(r"TOCSIN_EXTERN\s+([^;(]*?)\s*\(([^;]*?)\)\s*;", body, flags=re.S):
        returned = declaration(head)
        functions.append({"name": returned["name"], "header": header, "returns": returned["type"],
                          "parameters": parameters(arguments)})

    typedefs, structs = [], []
    for match in re.finditer(r"\btypedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;|\btypedef\b(.*?);", body, flags=re.S):
        if match.group(1):
            typedefs.append({"name": match.group(3), "header": header, "kind": "struct", "type": f"struct {match.group(1)}"})
            structs.append(struct_entry(match.group(1), match.group(2), header, text))
            continue
        definition = " ".join(match.group(4).split())
        if pointer := re.fullmatch(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)", definition):
            typedefs.append({"name": pointer.group(2), "header": header, "kind": "function_pointer",
                             "returns": c_type(pointer.group(1)), "parameters": parameters(pointer.group(3))})
        elif opaque := re.fullmatch(r"struct (\w+) (\w+)", definition):
            typedefs.append({"name": opaque.group(2), "header": header, "kind": "opaque", "type": f"struct {opaque.group(1)}"})
        elif alias := re.fullmatch(r"([\w ]+?) (\w+)", definition):
            typedefs.append({"name": alias.group(2), "header": header, "kind": "alias", "type": c_type(alias.group(1))})
        else:
            raise HeaderError(f"{header}: cannot read 'typedef {definition}'")
    return {"functions": functions, "typedefs": typedefs, "structs": structs, "enums": enums,
            "defines": defines, "errors": errors}


def struct_entry(name: str, fields: str, header: str, text: str) -> dict:
    entry = {"name": name, "header": header,
             "fields": [declaration(field) for field in fields.split(";") if field.strip()]}
    source = text[text.index(f"typedef struct {name} {{"):]
    source = source[: source.index(f"}} {name};")]
    doc = text[: text.index(f"typedef struct {name} {{")].rsplit("/**", 1)[-1]
    # Grows at its end: a later minor version may add fields after these.
    entry["grows_at_end"] = "added at the end" in doc or "lets this struct grow" in source
    if entry["fields"][0] == {"name": "size", "type": "size_t"}:
        # The caller states the struct's size; these shorter sizes (the struct
        # cut before each field named) are accepted too, as older versions.
        older = re.findall(rf"offsetof\(\s*{name}\s*,\s*(\w+)\s*\)", source)
        entry["size_rule"] = {"field": "size", "set_to": f"sizeof({name})",
                              "also_accepted": [f"offsetof({name}, {field})" for field in older],
                              "also_accepted_fields": older}
    return entry


def comment_before(text: str, body: str, position: int) -> str:
    """The doc comment (`/** ... */`) right before the enum at `position` of
    the comment-free text (which keeps the header's lines), as one line, or ""."""
    line = body.count("\n", 0, position)
    before = "\n".join(text.split("\n")[:line]).rstrip()
    if not before.endswith("*/"):
        return ""
    comment = before[before.rindex("/*"):]
    return " ".join(comment.strip("/*").replace("\n *", " ").split())
