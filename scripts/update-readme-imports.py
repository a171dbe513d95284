#!/usr/bin/python3
"""Rewrites the README's list of every name mixprec.torch imports (between
its "imported names" markers) from the lowering registry. With --check it
changes nothing and fails, showing the list, when the README's is not the
registry's (test_torch_docs.py runs it so).

    /usr/bin/python3 scripts/update-readme-imports.py [--check]
"""
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import mixprec.torch  # noqa: E402,F401 (the lowerings register themselves)
from mixprec.torch import registry  # noqa: E402

BEGIN = ("<!-- imported names: generated from the lowering registry by "
         "scripts/update-readme-imports.py -->")
END = "<!-- end of imported names -->"


def listing():
    modules, functions, methods, operators = registry.imported_names()
    text = ("Every name with a lowering (the registry's, "
            "`mixprec.torch.registry`): modules %s; functions %s; Tensor "
            "methods %s; operators %s." % tuple(
                ", ".join("`%s`" % name for name in group)
                for group in (modules, functions, methods, operators)))
    return "\n".join(textwrap.wrap(text, 79, break_long_words=False,
                                   break_on_hyphens=False))


def main():
    readme = ROOT / "README.md"
    text = readme.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    updated = text[:start] + "\n" + listing() + "\n" + text[end:]
    if "--check" in sys.argv[1:]:
        if updated != text:
            print(listing())
            sys.exit("README.md's list of imported names is not the "
                     "registry's; refresh it with: /usr/bin/python3 "
                     "scripts/update-readme-imports.py")
        return
    readme.write_text(updated)


if __name__ == "__main__":
    main()
