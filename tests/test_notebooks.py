"""The notebooks run top to bottom (on a small budget), so they never rot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    if "train" in path.stem:
        pytest.importorskip("sb3_contrib")
    # one rollout of the training notebook (64 games x 64 decisions): it runs, it learns nothing
    monkeypatch.setenv("HILO_NOTEBOOK_STEPS", "4096")
    monkeypatch.setenv("HILO_NOTEBOOK_HANDS", "100")
    monkeypatch.setenv("HILO_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert outputs  # every notebook shows something


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_keeps_its_outputs(path: Path) -> None:
    """A reader sees the results without running anything: every code cell was run and saved."""
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code)
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
