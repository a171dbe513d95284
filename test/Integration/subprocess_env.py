"""The environment of a Python subprocess of a test: it imports mixprec
from the source tree's python/ and the test modules from this directory, as
the tests do (pytest.ini's pythonpath)."""
import os
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
PYTHON_PATH = [str(HERE.parents[1] / "python"), str(HERE)]


def python_env(**variables):
    """os.environ with `variables` set and PYTHON_PATH ahead of any
    PYTHONPATH it has."""
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get(
        "PYTHONPATH") else []
    return dict(os.environ, **variables,
                PYTHONPATH=os.pathsep.join(PYTHON_PATH + inherited))
