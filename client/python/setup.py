"""Build hook: runs generate.sh (protoc + grpc_python_plugin) to write
halma_client/_gen before setuptools looks at the package.

Both egg_info (the metadata, which lists the package's files) and build_py
(which copies them) need the generated modules, so both run it, once per
process. Everything else about the package is in pyproject.toml.
"""

import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

HERE = os.path.dirname(os.path.abspath(__file__))
_generated = []


def generate():
    if not _generated:
        subprocess.run(["bash", os.path.join(HERE, "generate.sh")], check=True)
        _generated.append(True)


class EggInfoWithProtos(egg_info):
    def run(self):
        generate()
        super().run()


class BuildPyWithProtos(build_py):
    def run(self):
        generate()
        super().run()


setup(cmdclass={"egg_info": EggInfoWithProtos, "build_py": BuildPyWithProtos})
