"""What the importer cannot take, said with the place in the user's code."""
import os
import re

# Frames of these files are the machinery, not the user's code.
_MACHINERY = (os.sep + "torch" + os.sep,
              os.path.dirname(os.path.abspath(__file__)) + os.sep)


class UnsupportedError(NotImplementedError):
    """A module, function, method or argument mixprec.torch does not
    import. `construct` names it, `module` is the module path where it was
    found ("" for the top) and `source` the user's "file:line"."""

    def __init__(self, construct, module="", source=None, reason=""):
        self.construct = construct
        self.module = module
        self.source = source
        self.reason = reason
        where = " in module '%s'" % module if module else ""
        at = " at %s" % source if source else ""
        super().__init__("%s is not supported%s%s%s" % (
            construct, where, at, ": " + reason if reason else ""))


def user_frame(frames):
    """The innermost of `frames` ((file, line, code) pairs, innermost
    first) that belongs to the user's code, as "file:line: code"."""
    for filename, line, code in frames:
        if not any(part in os.path.abspath(filename) for part in _MACHINERY):
            text = "%s:%d" % (filename, line)
            return text + (": " + code.strip() if code else "")
    return None


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n(?:    ([^\n]*))?')


def user_line(stack_trace):
    """The user's line from an fx node's recorded stack trace."""
    if not stack_trace:
        return None
    return user_frame([(f, int(n), c) for f, n, c in
                       _FRAME.findall(stack_trace)])
