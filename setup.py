"""Builds lazytensor._C with the project's CMake and packages it with the Python sources.

The layer libraries (liblt_*.so) are copied next to _C; both are linked with
RPATH $ORIGIN, so the installed package is self-contained.
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("LT_PIP_BUILD_DIR", os.path.join(ROOT, "build", "pip"))
        os.makedirs(build_dir, exist_ok=True)
        jobs = os.environ.get("LT_BUILD_JOBS", "2")
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, *gen, "-DCMAKE_BUILD_TYPE=Release",
                               "-DPython_EXECUTABLE=" + sys.executable, "-DLT_BUILD_TESTS=OFF",
                               "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON"])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "lt_python_ext", "-j", jobs])
        out = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        built = glob.glob(os.path.join(build_dir, "python", "lazytensor", "_C*.so"))
        shutil.copyfile(built[0], out)
        # lazytensor._distributed exists when CMake found Gloo (distributed/CMakeLists.txt).
        listed = subprocess.run(["cmake", "--build", build_dir, "--target", "help"], capture_output=True, text=True)
        if "lt_distributed_ext" in listed.stdout:
            subprocess.check_call(["cmake", "--build", build_dir, "--target", "lt_distributed_ext", "-j", jobs])
            for so in glob.glob(os.path.join(build_dir, "python", "lazytensor", "_distributed*.so")):
                shutil.copyfile(so, os.path.join(os.path.dirname(out), os.path.basename(so)))
        # The soname files (liblt_x.so.0) the extension and the layers load.
        for lib in glob.glob(os.path.join(build_dir, "**", "liblt_*.so.[0-9]"), recursive=True):
            shutil.copyfile(lib, os.path.join(os.path.dirname(out), os.path.basename(lib)))


setup(
    name="lazytensor",
    version="0.1.0",
    package_dir={"": "bindings/python"},
    packages=find_packages("bindings/python"),
    ext_modules=[CMakeExtension("lazytensor._C")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
