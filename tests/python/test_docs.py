"""docs/python.md cannot rot: its ```python blocks run here, in order, in
one namespace (as a reader would type them), and its example command runs
as written. A block whose first line is "# needs: cupy" runs only where
CuPy, a GPU and the CUDA backend are present."""

import os
import re
import shlex
import subprocess
import sys

import pytest

import strata
from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), flags=re.S)


def cupy_ready():
    try:
        import cupy  # noqa: F401
    except Exception:
        return False
    return strata.with_cuda and strata.cuda_available()


def test_the_guide_has_its_sections():
    text = DOC.read_text()
    for heading in ("## Install", "## Solve", "## AMG as a SciPy preconditioner",
                    "## Newton steps and time stepping: resetup", "## GPU with CuPy",
                    "## Errors"):
        assert heading in text
    assert len(blocks("python")) >= 7


def test_python_blocks_run_in_order(capsys):
    namespace = {"__name__": "docs_python_md"}
    ran, skipped = 0, []
    for i, code in enumerate(blocks("python")):
        if code.startswith("# needs: cupy"):
            if not cupy_ready():
                skipped.append(i)
                continue
        exec(compile(code, f"{DOC}:python block {i}", "exec"), namespace)
        ran += 1
    out = capsys.readouterr().out
    assert "converged" in out and "unknown key 'solver.tolerence'" in out
    assert "b has dtype float32; expected float64" in out
    assert ran + len(skipped) >= 7 and ran >= 6
    if skipped and os.environ.get("STRATA_REQUIRE_CUDA") == "1":
        pytest.fail(f"STRATA_REQUIRE_CUDA=1 but the CuPy blocks {skipped} could not run")


def test_the_example_command_runs(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the example plots)")
    commands = [c for c in blocks("sh") if "plot_convergence.py" in c]
    assert len(commands) == 1
    argv = shlex.split(commands[0].strip())
    assert argv[0] == "python3"
    argv[0] = sys.executable
    argv[1] = str(ROOT / argv[1])
    # A smaller grid keeps the test short; the output goes to tmp_path.
    argv[argv.index("--n") + 1] = "16"
    argv[argv.index("--output") + 1] = str(tmp_path / "convergence.png")
    run = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    for coarsening in ("classical", "aggregation"):
        line = next(l for l in lines if l.startswith(coarsening))
        assert " converged " in line
        residual = float(re.search(r"\|\| = ([0-9.e+-]+)", line).group(1))
        assert residual <= 1e-10
    png = (tmp_path / "convergence.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_readme_python_block_runs():
    readme = (ROOT / "README.md").read_text()
    code = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(code) == 1
    namespace = {}
    exec(compile(code[0], "README.md:python block", "exec"), namespace)
    assert namespace["info"]["converged"] and namespace["code"] == 0
    A, b, x = namespace["A"], namespace["b"], namespace["x"]
    import numpy as np
    # SciPy's default tolerance with the AMG preconditioner.
    assert np.linalg.norm(b - A @ x) <= 1e-5 * np.linalg.norm(b)
