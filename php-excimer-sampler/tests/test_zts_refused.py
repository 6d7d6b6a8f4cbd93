"""The extension is built for non-thread-safe PHP only (README: "Threads:
NTS only"): configure refuses a thread-safe (ZTS) PHP with a message that
says so, before anything is compiled, and accepts Debian's NTS PHP.

A ZTS PHP is not installed here, so the refusal is tried against Debian's
headers with one change: phpize's configure reads ZTS from
main/php_config.h under `php-config --include-dir`, so a php-config that
names a copy of that tree, where php_config.h defines ZTS, is a ZTS PHP
as far as configure can tell.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EXT = HERE.parent

pytestmark = pytest.mark.skipif(not shutil.which("phpize") or not shutil.which("php-config"),
                                reason="phpize and php-config (php8.2-dev) are needed")


def include_tree(dest, zts):
    """Debian's PHP headers, linked, with a php_config.h that defines ZTS or not."""
    real = Path(subprocess.run(["php-config", "--include-dir"], check=True,
                               capture_output=True, text=True).stdout.strip())
    dest.mkdir()
    for entry in real.iterdir():
        if entry.name != "main":
            (dest / entry.name).symlink_to(entry)
    (dest / "main").mkdir()
    for entry in (real / "main").iterdir():
        if entry.name != "php_config.h":
            (dest / "main" / entry.name).symlink_to(entry)
    text = (real / "main" / "php_config.h").read_text()
    if zts:
        assert "/* #undef ZTS */" in text, "Debian's PHP is expected to be NTS"
        text = text.replace("/* #undef ZTS */", "#define ZTS 1")
    (dest / "main" / "php_config.h").write_text(text)
    return dest


def fake_php_config(tmp, includes):
    """php-config as Debian's, but with its include directory elsewhere."""
    script = tmp / "php-config"
    script.write_text(
        "#!/bin/sh\n"
        f'case "$1" in\n'
        f'  --include-dir) echo "{includes}" ;;\n'
        f'  --includes) echo "-I{includes} -I{includes}/main -I{includes}/TSRM '
        f'-I{includes}/Zend -I{includes}/ext -I{includes}/ext/date/lib" ;;\n'
        f'  *) exec php-config "$@" ;;\n'
        f"esac\n")
    script.chmod(0o755)
    return script


def configure(tmp, zts):
    build = tmp / "ext"
    build.mkdir()
    shutil.copy2(EXT / "config.m4", build / "config.m4")
    subprocess.run(["phpize"], cwd=build, check=True, capture_output=True)
    php_config = fake_php_config(tmp, include_tree(tmp / "include", zts))
    return subprocess.run(["./configure", "--enable-excimer", f"--with-php-config={php_config}"],
                          cwd=build, capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C"))


def test_configure_refuses_a_thread_safe_php(tmp_path):
    r = configure(tmp_path, zts=True)
    assert r.returncode != 0, r.stdout
    assert "checking if zts is enabled... yes" in r.stdout
    assert "supports only non-thread-safe PHP (NTS)" in r.stderr
    assert "this PHP is thread-safe (ZTS)" in r.stderr
    assert not (tmp_path / "ext" / "Makefile").exists()


def test_configure_accepts_debians_nts_php(tmp_path):
    r = configure(tmp_path, zts=False)
    assert r.returncode == 0, r.stderr
    assert "checking if zts is enabled... no" in r.stdout
    assert (tmp_path / "ext" / "Makefile").exists()
