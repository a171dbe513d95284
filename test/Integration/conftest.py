"""pytest configuration of the integration suite: the mixprec package comes
from python/ and the tools from the build directory ($MIXPREC_BUILD)."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))


import pytest  # noqa: E402

import harness  # noqa: E402


@pytest.fixture(scope="module", params=harness.BACKENDS)
def backend(request):
    """Runs a module's tests once with the CPU libraries and once with their
    CUDA builds on the GPU simulator (where it is built): modules that run
    compiled code say `pytestmark = pytest.mark.usefixtures("backend")`, and
    their module-scoped fixtures that compile take `backend` too."""
    harness.BACKEND = request.param
    yield request.param
    harness.BACKEND = "cpu"
