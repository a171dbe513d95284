"""pytest configuration of the integration suite: the mixprec package comes
from python/ (pytest.ini's pythonpath) and the tools from the build directory
($MIXPREC_BUILD)."""
import os

import pytest

import harness


@pytest.fixture(scope="session", autouse=True)
def compile_cache(tmp_path_factory):
    """The libraries compiled without an output path go to a cache of the
    session's own (unless $MIXPREC_CACHE names one), not to the user's."""
    if os.environ.get("MIXPREC_CACHE"):
        yield os.environ["MIXPREC_CACHE"]
        return
    directory = tmp_path_factory.mktemp("mixprec-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MIXPREC_CACHE", str(directory))
        yield str(directory)


@pytest.fixture(scope="module", params=harness.BACKENDS)
def backend(request):
    """Runs a module's tests once with the CPU libraries and once with their
    CUDA builds on the GPU simulator (where it is built): modules that run
    compiled code say `pytestmark = pytest.mark.usefixtures("backend")`, and
    their module-scoped fixtures that compile take `backend` too."""
    harness.BACKEND = request.param
    yield request.param
    harness.BACKEND = "cpu"
