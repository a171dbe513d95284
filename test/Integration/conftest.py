"""pytest configuration of the integration suite: the mixprec package comes
from python/ and the tools from the build directory ($MIXPREC_BUILD)."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
