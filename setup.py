"""pip install --no-build-isolation . : builds the extension module ropecheck._ropecheck with the
project's CMake build (target ropecheck_python, Release, for the interpreter running pip) and
installs it beside src/python/ropecheck/*.py. Metadata: pyproject.toml. Needs what scripts/setup
installs (the C++ libraries, pybind11-dev, python3-dev)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DROPECHECK_BUILD_BENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "ropecheck_python", "-j", jobs], check=True)
        built = sorted((build / "python" / "ropecheck").glob("_ropecheck*.so"))
        if not built:
            raise RuntimeError(f"the CMake build left no _ropecheck*.so in {build / 'python' / 'ropecheck'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(ext_modules=[CMakeExtension("ropecheck._ropecheck")], cmdclass={"build_ext": CMakeBuild})
