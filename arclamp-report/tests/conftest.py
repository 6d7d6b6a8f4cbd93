"""arclamp-report's pytest: common/tests (testkit, browserkit) on the path."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
