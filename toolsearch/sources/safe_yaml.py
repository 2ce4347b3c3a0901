"""Bounded YAML loading: alias bombs, cyclic anchors and runaway nesting are refused.

PyYAML's safe loader still expands aliases: nine lines of "billion laughs" become 10⁹ nodes
once anything walks the data (JSON encoding, ``freeze``, a ``repr``). :func:`load_yaml`
composes the document into its node graph first (aliases are shared nodes there, nothing is
expanded), counts how many nodes the data *would* have, and refuses the document with one line
when aliases would add more than :data:`MAX_ALIAS_NODES` nodes, when an anchor contains
itself (a cycle), or when the document has more than :data:`MAX_NODES` nodes. Only then is it
constructed. libyaml itself refuses nesting deeper than 1,000 levels.
"""

from __future__ import annotations

from typing import Any

import yaml

#: Nodes that alias expansion may add on top of the document's own nodes.
MAX_ALIAS_NODES = 100_000
#: Nodes a document may have at all (a 64 MiB file of short scalars stays under it).
MAX_NODES = 20_000_000

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlRefused(ValueError):
    """The document is valid YAML but too expensive to load (the message says why)."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def check_node_graph(root: yaml.Node, *, max_alias_nodes: int = MAX_ALIAS_NODES,
                     max_nodes: int = MAX_NODES) -> None:
    """Raise :class:`YamlRefused` for a cycle or an expansion past the bounds (iterative:
    no recursion, each distinct node visited once)."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in _children(node))
            if size[key] - len(size) > max_alias_nodes:
                raise YamlRefused(f"refused: YAML aliases expand to over {max_alias_nodes:,} "
                                  "extra nodes (an alias bomb?)")
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise YamlRefused("refused: a YAML anchor contains an alias to itself (cyclic)")
        open_nodes.add(key)
        if len(open_nodes) + len(size) > max_nodes:
            raise YamlRefused(f"refused: the YAML document has over {max_nodes:,} nodes")
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise YamlRefused("refused: a YAML anchor contains an alias to itself (cyclic)")
            if id(child) not in size:
                stack.append((child, False))


def duplicate_keys(root: yaml.Node, limit: int = 3) -> list[tuple[str, int]]:
    """The first *limit* keys written twice in one mapping, as (key, line); PyYAML keeps the
    last one without a word (so does Hermes). Iterative, each node visited once."""
    found: list[tuple[str, int]] = []
    seen: set[int] = set()
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[tuple[str, str]] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if (key.tag, key.value) in keys and len(found) < limit:
                        found.append((key.value, key.start_mark.line + 1))
                    keys.add((key.tag, key.value))
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(found, key=lambda pair: pair[1])


def load_yaml(text: str, duplicates: list[tuple[str, int]] | None = None) -> Any:
    """``yaml.safe_load`` with the bounds above. Raises ``yaml.YAMLError`` for invalid YAML,
    :class:`YamlRefused` for a refused one, ValueError for a number Python will not parse
    (an integer of over 4,300 digits) and RecursionError for data nested too deeply to build.
    *duplicates*, when given, receives :func:`duplicate_keys` of the document."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "&" in text:  # no anchor, no alias: nothing to expand, no cycle possible
            check_node_graph(node)
        if duplicates is not None:
            duplicates.extend(duplicate_keys(node))
        return loader.construct_document(node)
    finally:
        loader.dispose()
