"""What the importer cannot take, said with the place in the user's code."""
import os
import re

import torch

# The file name of the code tracing.py generates to call the user's
# loss_fn: its frame separates the loss_fn's frames from the tracer's.
GENERATED = "<mixprec.torch: loss_fn(model, *batch)>"

# Frames of these are the machinery, not the user's code.
_MACHINERY_DIRS = (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
                   os.path.dirname(os.path.abspath(__file__)) + os.sep)


class UnsupportedError(NotImplementedError):
    """A module, function, method or argument mixprec.torch does not
    import. `construct` names it; `module` is the path of the module whose
    forward holds it ("encoder.0"; "" for the model's own forward; None
    when it is not in a module: the loss_fn, the optimizer); `source` is
    the user's "file:line: code" and `reason` what would be supported."""

    def __init__(self, construct, module=None, source=None, reason=""):
        self.construct = construct
        self.module = module
        self.source = source
        self.reason = reason
        message = "%s is not supported" % construct
        if module == "":
            message += " in the model's forward"
        elif module is not None:
            message += " in module '%s'" % module
        if source:
            # The code ends the line; the reason follows on the next one.
            message += " at %s" % source
            if reason:
                message += "\n  %s" % reason
        elif reason:
            message += ": %s" % reason
        super().__init__(message)


def _is_machinery(filename):
    return filename == GENERATED or os.path.abspath(filename).startswith(
        _MACHINERY_DIRS)


def _frame_text(filename, line, code):
    return "%s:%d" % (filename, line) + (": " + code.strip() if code else "")


def user_frame(frames):
    """The innermost of `frames` ((file, line, code) triples, innermost
    first) that belongs to the user's code, as "file:line: code"."""
    for filename, line, code in frames:
        if not _is_machinery(filename):
            return _frame_text(filename, line, code)
    return None


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n(?:    ([^\n]*))?')


def _frames(stack_trace):
    """(file, line, code) of each frame of an fx node's recorded stack
    trace, innermost first."""
    return [(f, int(n), c) for f, n, c in _FRAME.findall(stack_trace or "")]


def user_line(stack_trace):
    """The user's line from an fx node's recorded stack trace."""
    return user_frame(_frames(stack_trace))


def loss_fn_line(stack_trace):
    """The line of the loss_fn itself (not of the model's forward it calls)
    where the node with `stack_trace` was made."""
    frames = _frames(stack_trace)
    for inner, outer in zip(frames, frames[1:]):
        if outer[0] == GENERATED:
            return _frame_text(*inner)
    return None
