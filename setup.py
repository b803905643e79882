"""Builds solbench: the Python package plus its C++ core (through CMake).

    pip install --no-build-isolation .

CMake builds the pybind11 extension `solbench._core` (the parser, raiser,
recognizers, templater and packager); `solgen` is installed as a console script
that runs the same command line.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        out_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        jobs = str(max(1, min(os.cpu_count() or 1, 4)))
        subprocess.check_call(
            [
                "cmake", "-S", str(ROOT), "-B", str(build_dir),
                "-DCMAKE_BUILD_TYPE=Release",
                "-DSOLBENCH_PYTHON=ON", "-DSOLBENCH_TESTS=OFF",
                f"-DPython3_EXECUTABLE={sys.executable}",
                f"-DSOLBENCH_PYTHON_OUT={out_dir}",
            ]
        )
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_core", "-j", jobs])


setup(
    name="solbench",
    version="0.1.0",
    description="Turn LOGOS tensor ops into SOL-ExecBench submissions and check them locally",
    packages=find_packages(include=["solbench", "solbench.*"]),
    package_data={"solbench.cuda_host": ["include/*.h", "include/**/*.h"]},
    include_package_data=True,
    ext_modules=[CMakeExtension("solbench._core")],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"console_scripts": ["solgen = solbench.cli:main"]},
    python_requires=">=3.10",
    install_requires=["torch", "numpy"],
    zip_safe=False,
)
