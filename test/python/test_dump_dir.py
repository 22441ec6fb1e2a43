"""LT_DUMP_DIR never breaks a program: a missing directory is created, an unwritable one warns once."""
import os
import subprocess
import sys

PROGRAM = "import lazytensor as torch\nfor i in range(3):\n    print((torch.ones(3) * i).sum().item())\n"


def _run(dump_dir, tmp_path):
    env = dict(os.environ, LT_DUMP_DIR=str(dump_dir), LT_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)


def test_a_missing_dump_directory_is_created(tmp_path):
    d = tmp_path / "dumps" / "nested"
    r = _run(d, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0.0", "3.0", "6.0"]
    assert any(name.endswith(".trace") for name in os.listdir(d))


def test_an_unwritable_dump_directory_warns_once_and_the_program_goes_on(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    r = _run(blocker / "dumps", tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0.0", "3.0", "6.0"]
    assert r.stderr.count("LT_DUMP_DIR=") == 1, r.stderr
