"""What an install and a start print: no setuptools banner, no apispec warning."""
import shutil
import subprocess
import sys
import warnings

from tests import REPO

SOURCES = ("hookspecs", "svc_host", "builtin_plugins", "svc_controller", "svc_display", "examples")


def test_building_the_distribution_prints_no_warning(tmp_path):
    # a copy of the sources, so the build's own build/ folder stays out of the checkout
    for name in SOURCES:
        shutil.copytree(REPO / name, tmp_path / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, tmp_path / name)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                          "-w", str(tmp_path / "dist"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    printed = out.stdout + out.stderr
    assert "Warning" not in printed and "!!" not in printed, printed
    wheel = next((tmp_path / "dist").glob("svc_display-*.whl"))
    names = subprocess.run([sys.executable, "-m", "zipfile", "-l", str(wheel)], capture_output=True,
                           text=True, check=True).stdout
    assert "svc_display/plugin-template/hello_plugin/__init__.py" in names  # `plugin new`'s template


def test_the_rest_app_builds_its_openapi_document_without_a_warning(make_host):
    from svc_host.http.app import create_app

    host = make_host()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        create_app(host)
    assert [str(w.message) for w in caught] == []
    schemas = host.openapi["components"]["schemas"]
    # two classes named TickerItem(Schema) in two plugins: two components
    assert "TickerItem" in schemas and len([name for name in schemas if name.endswith("TickerItem")]) == 2
