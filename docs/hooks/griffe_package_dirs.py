"""A griffe extension for the API reference: the folders pyproject.toml installs under
poolgym's name through ``[tool.setuptools.package-dir]`` (``agents/`` as ``poolgym.agents``,
``configs/`` as ``poolgym.configs``, ...) are read from their folders and attached to the
``poolgym`` package, as the installed package has them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import griffe

ROOT = Path(__file__).resolve().parents[2]


class PackageDirs(griffe.Extension):
    """Attaches each mapped folder to the loaded ``poolgym`` package under its installed name."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        if pkg.name != "poolgym":
            return
        setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
        for name, folder in setuptools["package-dir"].items():
            module = loader.load(ROOT / folder)
            module.name = name.removeprefix("poolgym.")
            module.parent = pkg
            pkg.set_member(module.name, module)
