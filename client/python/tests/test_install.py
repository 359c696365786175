"""With --installed: the package under test is the installed one, complete."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import halma_client

SOURCE = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif("not config.getoption('installed')",
                                reason="only with --installed")


def test_imported_from_the_installation_not_the_source_tree() -> None:
    package = Path(halma_client.__file__).resolve().parent
    assert SOURCE not in package.parents, package
    assert Path(sys.prefix).resolve() in package.parents, (package, sys.prefix)
    assert (package / "py.typed").is_file()
    generated = sorted(p.name for p in (package / "_gen").iterdir() if p.suffix in (".py", ".pyi"))
    assert generated == ["__init__.py", "halma_pb2.py", "halma_pb2.pyi", "halma_pb2_grpc.py",
                         "health_pb2.py", "health_pb2.pyi", "health_pb2_grpc.py"]
    assert (Path(sys.executable).parent / "halma-example").is_file()


def test_generated_modules_import_each_other_inside_the_package() -> None:
    from halma_client._gen import halma_pb2_grpc, health_pb2_grpc

    # The names protoc gives the imported modules.
    assert getattr(halma_pb2_grpc, "halma_dot_v1_dot_halma__pb2") is halma_client.halma_pb2
    assert getattr(health_pb2_grpc, "grpc_dot_health_dot_v1_dot_health__pb2") is \
        halma_client.health_pb2
    assert "halma" not in sys.modules  # No top-level package of generated code.
    import grpc

    assert not hasattr(grpc, "health")  # grpcio is not shadowed.
