"""The PEP 517 build backend of `pip install --no-build-isolation .` (pyproject.toml): builds the
extension module with the project's own CMake build (target ropecheck_python, Release, for the
interpreter running pip) and writes a wheel of src/python/ropecheck with it.

It needs nothing beyond the standard library and what scripts/setup installs (CMake, the C++
libraries, pybind11-dev, the interpreter's headers): no setuptools or wheel package, so it works
offline with any CPython 3.9+ that has its headers (Debian's /usr/bin/python3, or a pyenv build).
The CMake build directory is build/python-<cache tag>/ in the checkout (ignored by git), reused by
the next install.
"""

import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

NAME = "ropecheck"
SUMMARY = ("Certified checks of the claims about Rotary Positional Encodings, a correctly rounded "
           "RoPE kernel, and an exact audit of any RoPE")
ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "python" / NAME
# The version is written once, in src/io/version.h (CMake's project() and __version__ read it too).
VERSION = re.search(r'#define ROPECHECK_VERSION "([0-9.]+)"', (ROOT / "src" / "io" / "version.h").read_text()).group(1)


def _tag():
    """The wheel tag of this interpreter: cpXY-cpXY-<platform> (the extension is built for it)."""
    if sys.implementation.name != "cpython":
        raise RuntimeError("ropecheck's extension module is built for CPython only")
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{py}-{py}-{platform}"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.9\n")


def _build_module():
    """Runs the CMake build; returns the path of the built _core*.so."""
    build = ROOT / "build" / f"python-{sys.implementation.cache_tag}"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", "-DROPECHECK_BUILD_BENCH=OFF",
                    f"-DPython_EXECUTABLE={sys.executable}"], check=True, stdout=sys.stderr)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    subprocess.run(["cmake", "--build", str(build), "--target", "ropecheck_python", "-j", jobs], check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    module = build / "python" / NAME / f"_core{suffix}"
    if not module.is_file():
        raise RuntimeError(f"the CMake build left no {module}")
    return module


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_dist_info(directory):
    info = Path(directory) / f"{NAME}-{VERSION}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata())
    return info.name


# ---------------------------------------------------------------- PEP 517 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module = _build_module()
    tag = _tag()
    dist_info = f"{NAME}-{VERSION}.dist-info"
    # The package: its modules, the extension's type stub and the PEP 561 marker.
    sources = sorted(p for p in PACKAGE.rglob("*") if p.is_file() and (p.suffix in (".py", ".pyi") or p.name == "py.typed")
                     and "__pycache__" not in p.parts)
    files = [(f"{NAME}/{p.relative_to(PACKAGE).as_posix()}", p.read_bytes()) for p in sources]
    files.append((f"{NAME}/{module.name}", module.read_bytes()))
    files.append((f"{dist_info}/METADATA", _metadata().encode()))
    files.append((f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: ropecheck wheel_backend\nRoot-Is-Purelib: false\n"
                                         f"Tag: {tag}\n").encode()))
    record = "\n".join(_record_line(name, data) for name, data in files) + f"\n{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))
    name = f"{NAME}-{VERSION}-{tag}.whl"
    path = Path(wheel_directory) / name
    tmp = path.with_suffix(".whl.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arcname.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, path)
    return name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("ropecheck has no source distribution: install from a checkout (pip install --no-build-isolation .)")
