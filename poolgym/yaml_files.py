"""Reading the project's YAML files (variants, training configs) with bounds.

A few hundred bytes of YAML can expand to gigabytes through aliases (``*name`` repeating an
``&name`` anchor, nested), and a deeply nested file exhausts the stack. These files are
small hand-written settings, so the loader refuses what they never need: anything but a
regular file, files over ``MAX_BYTES`` (found while reading, ``poolgym.files.read_bounded``),
text that is not UTF-8, aliases, nesting deeper than ``MAX_DEPTH``, and a key given twice
in one mapping (PyYAML would silently keep the last one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from poolgym.files import read_bounded

MAX_BYTES = 64 * 1024
MAX_DEPTH = 32


def load_yaml_file(path: str | Path, what: str) -> Any:
    """The data of the YAML file ``path``, or a ``ValueError`` that starts with the path and
    says what is wrong (``what`` names the kind of file, e.g. "the variant")."""
    import yaml

    path = Path(path)
    try:
        # Bounded while read: a link to /dev/zero, a FIFO or a growing file stops here.
        raw = read_bounded(path, MAX_BYTES, what)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read {what}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: cannot read {what}: not UTF-8 text (byte 0x{raw[exc.start]:02x} "
                         f"at offset {exc.start})") from None
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: cannot read {what}: {_short(exc)}") from None


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` of ``text`` within this module's bounds (``yaml.YAMLError`` when
    they are passed)."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(
                    None, None, f"aliases (*{event.anchor}) are not allowed in poolgym files; "
                    "write the value out", event.start_mark)
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise yaml.composer.ComposerError(
                        None, None, f"nesting deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key; construct_mapping names it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} is given twice",
                                                        key_node.start_mark)
            seen.add(key)
        return loader.construct_mapping(node)

    BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=BoundedLoader)


def _short(exc: Exception, limit: int = 300) -> str:
    """An exception's message on one line, at most ``limit`` characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "…"
