"""tests/studies/<study>.yaml is regenerated from the dry-runs by one command (make expectations),
which prints the difference: none for the committed files, the changed lines for an edited one."""

import shutil

from testkit import ROOT, run

from hpcaas import expectations

STUDY = "osu-latency-bandwidth"


def test_the_committed_expectations_are_what_the_dry_runs_generate(project):
    proc = run(f"hpcaas study expectations {STUDY}", check=False)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "0 expectation file(s) would change" in proc.stderr


def test_an_edited_expectation_shows_its_difference_and_is_rewritten(project, tmp_path, monkeypatch, capsys):
    shutil.copy(ROOT / "tests/studies" / f"{STUDY}.yaml", tmp_path / f"{STUDY}.yaml")
    edited = tmp_path / f"{STUDY}.yaml"
    edited.write_text(edited.read_text().replace("count: 20", "count: 21", 1))
    monkeypatch.setattr(expectations, "FOLDER", tmp_path)
    monkeypatch.setattr(expectations, "ROOT", tmp_path)
    assert expectations.main([STUDY], write=False) == 1
    diff = capsys.readouterr().out
    assert "-  count: 21\n" in diff and "+  count: 20\n" in diff
    assert expectations.main([STUDY], write=True) == 0
    assert "count: 20" in edited.read_text() and "count: 21" not in edited.read_text()
