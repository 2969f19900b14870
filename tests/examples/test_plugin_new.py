"""``svc-display plugin new``: the example, renamed, in a folder of its own; its tests pass."""
import os
import subprocess
import sys

from tests import REPO


def _cli(*args, cwd):
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(cwd / "data")}
    return subprocess.run([sys.executable, "-m", "svc_host", *args], capture_output=True, text=True,
                          timeout=120, cwd=str(cwd), env=env)


def test_a_new_plugin_is_the_example_renamed_and_its_own_tests_pass(tmp_path):
    out = _cli("plugin", "new", "lunchmenu", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    target = tmp_path / "svc-display-lunchmenu"
    files = sorted(str(path.relative_to(target)) for path in target.rglob("*") if path.is_file())
    assert files == ["lunchmenu_plugin/__init__.py", "lunchmenu_plugin/display.py", "lunchmenu_plugin/types.json",
                     "pyproject.toml", "tests/test_lunchmenu.py"]
    assert out.stdout.split() == [str(target.relative_to(tmp_path) / name) for name in files]
    # was `pip install -e .`, which fails outside svc-display's environment (it is on no index)
    assert f"  {sys.executable} -m pip install -e svc-display-lunchmenu\n" in out.stderr
    assert f"  cd svc-display-lunchmenu && {sys.executable} -m pytest\n" in out.stderr
    assert "pip install /path/to/svc-display-checkout" in out.stderr
    code = (target / "lunchmenu_plugin" / "__init__.py").read_text()
    assert "hello" not in code.lower() and "class LunchmenuGreeting" in code and '"/v1/lunchmenu"' in code
    assert 'lunchmenu = "lunchmenu_plugin"' in (target / "pyproject.toml").read_text()
    # the types are declared as every builtin declares them: types.json, renamed with the rest
    assert "FEATURE = Feature(types=load_types(__name__))" in code
    types = (target / "lunchmenu_plugin" / "types.json").read_text()
    assert "hello" not in types.lower() and '"lunchmenu_plugin.display:card"' in types
    assert 'lunchmenu_plugin = ["types.json"]' in (target / "pyproject.toml").read_text()

    pytest_args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore", "tests"]
    tests = subprocess.run([sys.executable, *pytest_args], capture_output=True, text=True, timeout=300,
                           cwd=str(target), env={**os.environ, "PYTHONPATH": str(target)})
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "1 passed" in tests.stdout


def test_a_bad_or_taken_name_or_a_used_folder_is_refused_with_a_reason(tmp_path):
    bad = _cli("plugin", "new", "lunch-menu", cwd=tmp_path)
    assert bad.returncode == 2 and "one word of 2 to 40 lowercase letters and digits" in bad.stderr
    assert "try 'lunchmenu'" in bad.stderr
    for taken in ("clock", "ticker", "class"):  # a builtin screen type, a builtin plugin, a Python keyword
        out = _cli("plugin", "new", taken, cwd=tmp_path)
        assert out.returncode == 2 and f"plugin name {taken!r} is taken" in out.stderr, out.stderr
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    used = _cli("plugin", "new", "lunchmenu", "--dir", "used", cwd=tmp_path)
    assert used.returncode == 2 and "exists and is not an empty folder" in used.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used"]  # nothing written anywhere


def test_the_template_is_the_example_itself():
    # one copy of the skeleton: what `plugin new` copies is what `make test` runs
    template = REPO / "svc_display" / "plugin-template"
    assert template.is_symlink() and template.resolve() == (REPO / "examples" / "hello-plugin").resolve()
