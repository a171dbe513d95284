"""The entry points of the model ABI as the C header lists them
(include/mixprec/Runtime/mixprec_entry_points.def): what the tests compare
the Python table and a library's exports against."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENTRY_POINTS_DEF = ROOT / "include" / "mixprec" / "Runtime" / \
    "mixprec_entry_points.def"


def _c_type(declaration):
    """'const mixprec_function **function' -> 'const mixprec_function **'."""
    text = " ".join(declaration.split())
    m = re.fullmatch(r"(.*?[\s*])(\w+)", text)
    assert m, "a parameter without a name: %r" % declaration
    return m.group(1).strip()


def entry_points():
    """(name, result type, [parameter types]) of every entry point, in the
    file's order; types as C text with single spaces ('const char *')."""
    text = ENTRY_POINTS_DEF.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith("#"))
    found = []
    for m in re.finditer(r"MIXPREC_ENTRY_POINT\(\s*([^,]+?)\s*,\s*(\w+)\s*,"
                         r"\s*\(([^()]*)\)\s*\)", text):
        result, name, parameters = m.groups()
        types = [] if parameters.strip() in ("", "void") else \
            [_c_type(p) for p in parameters.split(",")]
        found.append((name, " ".join(result.split()), types))
    # Every mention was parsed: none malformed.
    assert len(found) == text.count("MIXPREC_ENTRY_POINT("), text
    return found


def exported_names():
    """Every mixprec_ symbol a model library exports: the entry points, the
    table (mixprec_get_api) and the version probe."""
    return sorted([name for name, _, _ in entry_points()] +
                  ["mixprec_get_api", "mixprec_abi_version"])
