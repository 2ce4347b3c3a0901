"""Fielded BM25 (BM25F) over a catalog: the retrieval of the ``bm25f`` profile (SPEC §9).

Each tool is six fields: its **name** words (the part after ``mcp__<server>__``), its server
**label**, its **description**, its top-level **parameter names**, their **parameter
descriptions**, and the **summary** (the description's first sentence, counted again). The
weights (:class:`Params`) were tuned on half of each query set: name 2.5x, label 3x, parameter
descriptions 0.3x, the rest 1x.

Words: ``[A-Za-z0-9]+`` runs joined by ``_`` / ``-`` form one identifier; in the name, label
and parameter names an identifier is split at the separators and at camelCase humps, each part
is a word and so is the joined compound (``getFileContents`` -> get, file, contents,
getfilecontents; ``VMs`` -> vm, vms); prose is read as plain lower-case words (splitting its
identifiers too did not help and doubled the build). A name's length leaves out its stopwords
(``dns_a_list``: dns, list, dnsalist), which a query never matches as content words: counted,
they ranked ``dns_a_list`` below every other ``dns_*_list`` tool for ``dns a list``. A run-on identifier in a name or parameter
name is also split into words found elsewhere in the catalog (``serverendpoint`` -> server,
endpoint). Every word is indexed exactly; its Snowball stem class
(every indexed word with the same stem) is a second term, so ``creating`` matches ``create``
while an exact match still scores more.

Query side: the same splitting, English stopwords dropped, each distinct word counted once, each
distinct stem counted once. A query word of 5+ letters that the catalog lacks, its stem too,
and that splits into no run-on parts is read as a typo: the catalog word one edit away
(deletion, insertion, substitution, adjacent transposition) that most tools hold is added
(``screenshoot`` -> screenshot). A query word that is one of the verbs tools are named with
(:data:`SYNONYM_GROUPS`: create/add/new/make/insert, delete/remove, run/execute, ...) also matches
that group's other words (exactly) at ``synonym_weight`` (0.5), in the tools that do not hold
the query word itself (a synonym stands in for its word, it does not add to
it): ``remove a task`` finds ``delete_task``. When fewer tools than asked match a content word, tools matching
only the query's stopwords fill the rest (scaled to 1%, always below the content hits); when
nothing matches at all, the seed's name-substring fallback (0.1).

Scoring: for term t and doc d, ``tf~ = sum_f w_f * tf_f / (1 - b_f + b_f * len_f / avglen_f)``,
``score += weight_t * idf(t) * tf~ * (k1 + 1) / (k1 + tf~)`` with the seed's idf
``ln(1 + (N - df + .5) / (df + .5))`` (``weight_t`` is 1 for exact terms, ``stem_weight``
for stem terms, ``synonym_weight`` for synonyms: :func:`term_weight`). Each hit carries its per-field, per-term contributions (they sum to the
score).

The index (per field each word's docs with its counts there, and per-doc, per-field word
counts made when a doc is explained) depends only on the catalog's content and lives in the
catalog's memo; the parameters (:class:`Params`) only change per-term memos, so a parameter
change never rebuilds it. The build reads every field as word ids (numpy is imported by the
first build): once per distinct text of a field, and once per distinct parameter name and
parameter description (tools share many). Prose is read as bytes by numpy, each word a number
(its letters the digits), so only each distinct word becomes a string
(:func:`_packed_tokens`; the summaries' ends found there too, :func:`_summary_ends`); the
identifiers (names, parameter names) are split together with numpy where they are plain ASCII
(:func:`_identifiers_words`), every identifier's run-on split is found at once with numpy
(hashes propose the parts, string lookups check the chosen split: :func:`_runon_splits`) and
the parts are added to the ids through a table (:func:`_with_runon_parts`); each text's word
counts are a sort of (text, word) keys (:func:`_tally`), laid out as the postings (one array
for all fields and words) with numpy. The build pauses the cyclic garbage collector (no
cycles are made). The stem classes, and the words by length a typo is looked up in, are found together when the first stem class is asked for
(the vocabulary stemmed in one call). With them, on the first query, every indexed word's
and stem class's field-weighted counts ``x`` are worked out in one pass of numpy calls from the
postings (they hold the counts: no per-doc word counts are read) and kept as three flat
arrays per parameters (:func:`_x_table`), so no later query pays for words it is the first to
use. A term's contributions are worked out from them on first use and memoised per
parameters as two arrays (docs, contributions); a query with several new terms works them all
out in one array (:func:`_batch_values`); the docs a synonym leaves out (those holding its
source word) are a bool array read from the postings, once per source word. A query's scores
are one float64 array: each
term's contributions added in turn, common terms first (one ``bincount``), so each doc's score
is the float the formula written out per doc gives (``tests/engine/test_bm25f_oracle.py``
checks it against that plain-Python
implementation); the top hits are a partition of it, ties in catalog order.
"""

from __future__ import annotations

import functools
import gc
import math
import re
from bisect import bisect_left
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain, groupby
from typing import TYPE_CHECKING, Any, Protocol, overload

from .bm25 import Hit
from .caches import register_cache, register_cache_fn
from .catalog import Catalog, CatalogEntry, _stemmer, source_label, stem
from .classify import def_name
from .tooldefs import def_parameters

if TYPE_CHECKING:
    from .profile import Profile

FIELDS = ("name", "label", "description", "params", "param_desc", "summary")
NAME, LABEL, DESCRIPTION, PARAMS, PARAM_DESC, SUMMARY = range(6)
_SPLIT_FIELDS = (NAME, LABEL, PARAMS)  # identifier fields where run-on words are split
_PROSE_FIELDS = (DESCRIPTION, PARAM_DESC, SUMMARY)
PROSE_IDENTIFIERS = False
"""Split identifiers inside prose fields too (False: plain words only, faster to build)."""

_COMPOUND = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]++(?:[_\-]++[A-Za-z0-9]++)+"
    r"|(?<![A-Za-z0-9_\-])(?=[a-z0-9]*+[A-Z])[A-Za-z0-9]*?(?:[a-z][A-Z]|[A-Z][A-Z][a-z])"
    r"[A-Za-z0-9]*+")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPS = re.compile(r"[_\-]+")
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")
_PLAIN_IDENT = re.compile(r"[A-Za-z0-9]+(?:[_\-]+[A-Za-z0-9]+)*")

MIN_RUNON = 6
"""Shortest identifier tried for a run-on split; each part must have at least 3 letters."""
MIN_PART = 3
MAX_PART = 64
"""Longest part of a run-on split, and longest query word read as a typo (the real catalogs'
longest part is under 50 letters). Both searches cost the square of a word's length: without a
bound, one 100,000-letter tool name took 5 s to index, a query of one such word 13 s."""
QUERY_RUNON_DF = 0
"""A run-on query word is split when at most this many tools contain it whole (``cosmosdb`` ->
cosmos, db); 0: only words the catalog lacks."""
MIN_STEM = 3
"""Query words shorter than this are matched exactly only (no stem class)."""
FALLBACK_SCORE = 0.1
STOPWORD_FILL = 0.01
"""Stopword-only hits (filling a short result) score this fraction of their BM25F score."""

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be been before being below
between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself no nor not of off on once only or other our ours ourselves out over own
please same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself yourselves s t
""".split())

SYNONYM_GROUPS = (
    "create add new make insert", "delete remove erase drop", "get fetch retrieve read obtain",
    "list enumerate", "update edit modify change", "search find lookup query",
    "run execute invoke", "start launch begin", "stop end terminate kill halt", "send post",
    "choose pick select", "write save store", "show display view", "close shut",
    "download save", "upload attach",
)
"""The verbs tools are named with, in groups of interchangeable words (issue 11). A query word
whose stem is a member's stem also matches the other members at ``Params.synonym_weight``."""


@lru_cache(maxsize=1)
def _synonym_table() -> dict[str, tuple[str, ...]]:
    """stem -> the other words of every group holding a word with that stem, in table order."""
    table: dict[str, list[str]] = {}
    for group in SYNONYM_GROUPS:
        members = group.split()
        for w in members:
            found = table.setdefault(stem(w), [])
            found.extend(x for x in members if stem(x) != stem(w) and x not in found)
    return {k: tuple(v) for k, v in table.items()}


@dataclass(frozen=True)
class Params:
    """BM25F parameters, chosen by ``benchmarks/tune_bm25f.py`` on the tuning half of each set
    (coordinate descent from name 2, label/description/params 1, param_desc 0.3, b 0.5 / 0 /
    0.75 / 0.5 / 0.75, k1 1.2, stem 1; then again with the summary field added)."""

    k1: float = 1.5
    weights: tuple[float, ...] = (2.5, 3.0, 1.0, 1.0, 0.3, 1.0)
    """Per field, in :data:`FIELDS` order: name, label, description, params, param_desc,
    summary."""
    b: tuple[float, ...] = (1.0, 0.0, 1.0, 0.5, 0.5, 0.75)
    stem_weight: float = 0.75
    synonym_weight: float = 0.5
    """Weight of a :data:`SYNONYM_GROUPS` synonym of a query word (matched exactly); 0 turns
    the expansion off."""


DEFAULT_PARAMS = Params()


class EntryLike(Protocol):
    """What the index reads of a catalog entry."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def schema(self) -> Mapping[str, Any]: ...
    @property
    def source_name(self) -> str: ...


# --------------------------------------------------------------------------- words


@register_cache_fn("bm25f.identifier_words")
@lru_cache(maxsize=65536)
def identifier_words(ident: str) -> tuple[str, ...]:
    """Lower-case parts of one identifier, then the joined compound when there are several."""
    if _PLAIN_IDENT.fullmatch(ident) and (ident.islower() or not _ACRONYM_PLURAL.search(ident)):
        # no empty or symbol-only piece, no ``VMs``: the parts of the whole are the pieces'
        parts = _PARTS.findall(ident)
        if not ident.islower():
            parts = list(map(str.lower, parts))
        if len(parts) > 1:
            parts.append("".join(parts))
        return tuple(parts)
    parts = []
    for piece in _SEPS.split(ident):
        if _ACRONYM_PLURAL.fullmatch(piece):  # VMs -> vm (the compound adds vms)
            parts.append(piece[:-1].lower())
            continue
        found = _PARTS.findall(piece)
        parts.extend(p.lower() for p in found) if found else parts.append(piece.lower())
    if len(parts) > 1:
        parts.append("".join(parts))
    return tuple(parts)


_extras_cache: dict[str, tuple[str, ...]] = register_cache("bm25f.extras", {})


def _extras(ident: str) -> tuple[str, ...]:
    """The words of a compound identifier that the plain ``[a-z0-9]+`` pass does not give."""
    found = _extras_cache.get(ident)
    if found is None and ("_" in ident or "-" in ident) and ident.isascii() and ident.islower(
            ) and ident.replace(
            "_", "").replace("-", "").isalpha():  # snake/kebab of plain words: the compound
        found = (ident.replace("_", "").replace("-", ""),)
        if len(_extras_cache) > 65536:
            _extras_cache.clear()
        _extras_cache[ident] = found
    if found is None:
        left = list(identifier_words(ident))
        for w in plain_words(ident):
            if w in left:
                left.remove(w)
        found = tuple(left)
        if len(_extras_cache) > 65536:
            _extras_cache.clear()
        _extras_cache[ident] = found
    return found


_ASCII_WORDS = bytes(
    (c + 32 if 65 <= c <= 90 else c) if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122)
    else 32 for c in range(256))


def plain_words(text: str) -> list[str]:
    """``[A-Za-z0-9]+`` runs, lower-cased (non-ASCII letters are separators), at C speed."""
    return text.encode("ascii", "replace").translate(_ASCII_WORDS).decode("ascii").split()


def text_words(text: str) -> list[str]:
    """Every word of a text (identifiers split, compounds kept), lower-case.

    Plain words come from one C-level pass; only identifiers with separators or camelCase
    humps go through :func:`identifier_words` (same multiset as splitting every identifier)."""
    if not text:
        return []
    return _with_extras(text, plain_words(text))


def _with_extras(text: str, words: list[str]) -> list[str]:
    """``words`` (the text's plain words) plus its compound identifiers' extra words."""
    if "_" in text or "-" in text or not text.islower():
        for ident in _COMPOUND.findall(text):
            words.extend(_extras(ident))
    return words


def words_of(text: str) -> list[str]:
    return text_words(text) if PROSE_IDENTIFIERS else plain_words(text)


def split_runon(word: str, vocab: Container[str]) -> tuple[str, ...]:
    """``serverendpoint`` -> (server, endpoint) when 2 or 3 parts are all in ``vocab``; else ().

    Parts have :data:`MIN_PART` to :data:`MAX_PART` letters; fewest parts win, then the most
    even-handed longest parts (largest sum of squared lengths), then the earliest split."""
    n = len(word)
    if n < MIN_RUNON or n > 3 * MAX_PART or not word.isalpha():
        return ()
    best: tuple[int, int, tuple[str, ...]] | None = None
    for i in range(MIN_PART, min(n - MIN_PART, MAX_PART) + 1):
        head = word[:i]
        if head not in vocab:
            continue
        rest = word[i:]
        if len(rest) <= MAX_PART and rest in vocab:
            cand: tuple[int, int, tuple[str, ...]] = (2, -(i * i + (n - i) ** 2), (head, rest))
            if best is None or cand[:2] < best[:2]:
                best = cand
            continue
        if best is not None and best[0] == 2:
            continue
        for j in range(max(MIN_PART, len(rest) - MAX_PART), min(len(rest) - MIN_PART, MAX_PART) + 1):
            mid, tail = rest[:j], rest[j:]
            if mid in vocab and tail in vocab:
                cand = (3, -(i * i + j * j + len(tail) ** 2), (head, mid, tail))
                if best is None or cand[:2] < best[:2]:
                    best = cand
    return best[2] if best is not None else ()


# --------------------------------------------------------------------------- index


_FIRST_SENTENCE = re.compile(r"[.!?](?:\s|$)")


@dataclass
class Index:
    """Per-doc, per-field word counts and lengths, and the postings. Built once per
    content."""

    names: tuple[str, ...]
    counts: Sequence[tuple[Mapping[str, int], ...]]
    """Per doc, per field (:data:`FIELDS` order): word -> tf (made for a doc when first read:
    only explanations read them, :class:`_DocCounts`)."""
    lengths: tuple[tuple[int, ...], ...]
    """Per field, per doc: number of indexed words."""
    avg: tuple[float, ...]
    vocab: list[str] = field(default_factory=list, repr=False)
    """Sorted indexed words (prefix search for stem classes, run-on splits of queries)."""
    vocab_set: frozenset[str] = field(default=frozenset(), repr=False)
    word_ids: Mapping[str, int] = field(default_factory=dict, repr=False)
    """Indexed word -> its place in :attr:`vocab`."""
    post_docs: Any = field(default=None, repr=False)
    """The postings, one numpy array (intp) for all fields and words: field by field, word by
    word (:attr:`vocab` order), each word's docs holding it in that field, ascending."""
    post_tfs: Any = field(default=None, repr=False)
    """Beside :attr:`post_docs`: how often the word occurs in that doc's field."""
    post_at: list[int] = field(default_factory=list, repr=False)
    """Where field ``f``'s postings of word id ``i`` start in :attr:`post_docs`:
    ``post_at[f * len(vocab) + i]``, ending where the next start."""
    postings: dict[str, Sequence[int]] = field(default_factory=dict, repr=False)
    """Per indexed word asked about: the docs containing it in any field, ascending (derived
    from the postings on first use)."""
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    """Stem classes and per-(params, term) contributions; derived data only."""

    @property
    def n(self) -> int:
        return len(self.names)

    def spans(self, word: str) -> list[tuple[int, int]]:
        """Per field (:data:`FIELDS` order), where ``word``'s postings are in
        :attr:`post_docs` (start, end); empty for a word the index lacks."""
        i = self.word_ids.get(word)
        if i is None:
            return [(0, 0)] * len(FIELDS)
        at, size = self.post_at, len(self.vocab)
        return [(at[k], at[k + 1]) for k in range(i, i + size * len(FIELDS), size)]

    def docs_with(self, word: str) -> Sequence[int]:
        """Docs containing ``word`` in any field, ascending."""
        found = self.postings.get(word)
        if found is None:
            lists = [self.post_docs[lo:hi].tolist()  # the summary's words are the description's
                     for lo, hi in self.spans(word)[:SUMMARY] if hi > lo]
            if not lists:
                return ()
            found = self.postings[word] = (
                lists[0] if len(lists) == 1 else sorted(set().union(*lists)))
        return found

    def df(self, word: str) -> int:
        return len(self.docs_with(word))

    def memo_for(self, params: Params) -> dict[Any, Any]:
        """The memo of everything derived under ``params`` (norms, contributions)."""
        found = self.memo.get(params)
        if found is None:
            found = self.memo[params] = {}
        return found


def _raw_fields(entry: EntryLike, labels: dict[str, str]
                ) -> tuple[str, str, str, str, tuple[str, ...]]:
    """(name, label, description, parameter names joined by spaces, the parameter
    descriptions) of one entry (the parameter-descriptions field is the descriptions joined by
    spaces: the same words)."""
    name = entry.name
    if name.startswith("mcp__"):
        _server, sep, tool = name[5:].partition("__")
        name = tool if sep and tool else name[5:]
    source = entry.source_name
    label = labels.get(source)
    if label is None:
        label = labels[source] = source_label(source) if source else ""
    # def_parameters and the mapping checks written out, dicts first (the defs as loaded): a
    # Python call per tool and per parameter was a tenth of this pass
    schema = entry.schema
    if isinstance(schema, dict) and isinstance(fn := schema.get("function"), dict):
        params = fn.get("parameters")
    else:
        params = def_parameters(schema)
    props = params.get("properties") if isinstance(params, dict) or isinstance(
        params, Mapping) else None
    keys = ""
    descs: tuple[str, ...] = ()
    if props and (isinstance(props, dict) or isinstance(props, Mapping)):
        try:  # (frozen defs' keys are strings: str() on each cost a tenth of this pass)
            keys = " ".join(props)
        except TypeError:  # a key that is no string
            keys = " ".join(map(str, props))
        descs = tuple([text for spec in props.values()
                       if (isinstance(spec, dict) or isinstance(spec, Mapping))
                       and isinstance(text := spec.get("description"), str)])
    return name, label, entry.description or "", keys, descs


def _slots(column: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """(the distinct texts in first-seen order, each row's index into them)."""
    distinct = list(dict.fromkeys(column))
    where = dict(zip(distinct, range(len(distinct)), strict=True))
    return distinct, list(map(where.__getitem__, column))


# byte classes of an identifier's characters: 0 NUL (between identifiers), 1 a-z, 2 A-Z,
# 3 0-9, 4 ``_`` / ``-``, 5 anything else (non-ASCII characters are ``?`` here)
_IDENT_CLASS = bytes(0 if c == 0 else 1 if 97 <= c <= 122 else 2 if 65 <= c <= 90
                     else 3 if 48 <= c <= 57 else 4 if c in (45, 95) else 5 for c in range(256))
_SEPS_TO_SPACE = bytes(32 if c in (45, 95) else c for c in range(256))


def _identifiers_words(units: Sequence[str]) -> list[list[str]]:
    """:func:`text_words` of each unit (a name, or one parameter name), worked out together.

    A unit that is one plain ASCII identifier (``[A-Za-z0-9]+`` pieces joined by ``_`` / ``-``;
    no ``VMs``-style acronym plural) is split with numpy over all such units at once: its
    pieces are its plain words; :data:`_COMPOUND` matches it whole when it has a separator or
    a camelCase hump (``aB``, ``ABc``), and then :func:`identifier_words` gives its
    :data:`_PARTS` (cut at those humps and between letters and digits) and their compound,
    which :func:`_extras` adds minus the pieces. Any other unit goes through
    :func:`text_words` itself. The same words in the same order, without a regular
    expression, a cache look-up and several calls per unit."""
    if not units:
        return []
    joined = "\x00".join(units)
    raw = joined.encode("ascii", "replace")
    if len(raw) != len(joined) or joined.count("\x00") != len(units) - 1:
        return [text_words(u) for u in units]  # (a NUL in a unit)
    np = _np()
    code = np.frombuffer(raw.translate(_IDENT_CLASS), dtype=np.uint8)
    size = len(code)
    lengths = np.fromiter(map(len, units), dtype=np.intp, count=len(units))
    starts = np.cumsum(lengths + 1) - (lengths + 1)
    ends = starts + lengths
    upper, lower, digit, sep = code == 2, code == 1, code == 3, code == 4
    letter = upper | lower
    # not plain: another character, a separator first or last, an acronym plural (AAs)
    bad = code == 5
    bad[2:] |= upper[:-2] & upper[1:-1] & (np.frombuffer(raw, dtype=np.uint8)[2:] == 115)
    # humps: a-z then A-Z (cut between), A-Z then A-Z a-z (cut between the capitals)
    hump = np.zeros(size, dtype=bool)
    hump[:-1] = lower[:-1] & upper[1:]
    big = np.zeros(size, dtype=bool)
    big[:-2] = upper[:-2] & upper[1:-1] & lower[2:]
    seen = np.zeros(size + 1, dtype=np.intp)  # running counts, read at each unit's bounds
    np.cumsum(bad, out=seen[1:])
    fast = (seen[ends] == seen[starts]) & (lengths > 0)
    nonempty = lengths > 0
    fast[nonempty] &= ~(sep[starts[nonempty]] | sep[ends[nonempty] - 1])
    np.cumsum(sep | hump | big, out=seen[1:])
    compound = (seen[ends] > seen[starts]).tolist()
    # the parts: a space before each cut (a hump, a letter-digit change), separators as spaces
    cut = np.flatnonzero(hump[:-1] | big[:-1] | (letter[:-1] & digit[1:])
                         | (digit[:-1] & letter[1:])) + 1
    low = raw.lower()
    spaced = np.insert(np.frombuffer(low, dtype=np.uint8), cut, 32).tobytes()
    parts = spaced.translate(_SEPS_TO_SPACE).decode("ascii").split("\x00")
    pieces = low.translate(_SEPS_TO_SPACE).decode("ascii").split("\x00")
    whole = low.translate(None, b"_-").decode("ascii").split("\x00")
    out: list[list[str]] = []
    for unit, plain, ok, joint, split, glued in zip(units, pieces, fast.tolist(), compound,
                                                   parts, whole, strict=True):
        if not ok:
            out.append(text_words(unit))
            continue
        words = plain.split()
        if joint:
            found = split.split()
            if found == words:  # each piece one part: the compound is the one extra word
                words.append(glued)
            else:
                found.append(glued)
                for w in words:
                    if w in found:
                        found.remove(w)
                words.extend(found)
        out.append(words)
    return out


def build_index(entries: Sequence[EntryLike]) -> Index:
    """Index the entries' fields (see the module docstring).

    Work is done once per distinct text of a field (many tools share parameter names and
    parameter descriptions). The cyclic garbage collector is paused meanwhile: the build
    makes many containers and no cycles, and the collections those allocations trigger cost
    about a quarter of the build."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _build_index(entries)
    finally:
        if paused:
            gc.enable()


def _build_index(entries: Sequence[EntryLike]) -> Index:
    """Every field as token ids (each distinct text's words, in order, as indices into the
    vocabulary), tallied into each text's (word, tf) pairs, laid out as postings.

    No per-text word dict is made: the prose fields' words are found and told apart by numpy
    (:func:`_packed_tokens`), the identifier fields' word lists are read into ids in one pass
    each, and the per-doc counts :attr:`Index.counts` are derived from the tallies when a doc
    is first explained (:class:`_DocCounts`)."""
    labels: dict[str, str] = {}
    rows = [_raw_fields(e, labels) for e in entries]
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
    names, labs, descriptions, keys, pdescs = (_slots(col) for col in columns)
    # identifier fields: the words of each distinct name, label and parameter name (a
    # parameter-name text is its names joined by spaces), run-on parts added once the
    # vocabulary is known
    key_units = [text.split(" ") for text in keys[0]]
    units = list(dict.fromkeys(chain.from_iterable(key_units)))
    unit_words = [_identifiers_words(names[0]), _identifiers_words(labs[0]),
                  _identifiers_words(units)]
    # prose: the descriptions' summaries and rests, the distinct parameter descriptions
    descs = list(dict.fromkeys(chain.from_iterable(pdescs[0])))
    prose_words, prose_ids, prose_at = _prose_tokens(descriptions[0], descs)
    halves = 2 * len(descriptions[0])

    vocab = set(prose_words)
    for lists in unit_words:
        vocab.update(*lists)
    words = sorted(vocab)
    word_ids = dict(zip(words, range(len(words)), strict=True))
    size = len(words)
    np = _np()
    prose_ids = np.fromiter(map(word_ids.__getitem__, prose_words), dtype=np.intp,
                            count=len(prose_words))[prose_ids]
    (name_ids, name_at), (label_ids, label_at), (unit_ids, unit_at) = _with_runon_parts(
        [_token_ids(lists, word_ids) for lists in unit_words], words, word_ids, vocab)
    unit_of = dict(zip(units, range(len(units)), strict=True)).__getitem__
    desc_of = dict(zip(descs, range(halves, halves + len(descs)), strict=True)).__getitem__
    # per field: (each distinct text's token ids, where each text's tokens start), the docs' slots
    summary_at, rest_at = prose_at[0:halves:2], prose_at[1:halves + 1:2]
    streams = (
        (name_ids, name_at, names[1]),
        (label_ids, label_at, labs[1]),
        (*_gathered(prose_ids, summary_at, prose_at[2:halves + 1:2]), descriptions[1]),
        (*_grouped(unit_ids, unit_at, [list(map(unit_of, ks)) for ks in key_units]),
         keys[1]),
        (*_grouped(prose_ids, prose_at, [list(map(desc_of, ds)) for ds in pdescs[0]]),
         pdescs[1]),
        (*_gathered(prose_ids, summary_at, rest_at), descriptions[1]))
    text_lengths = [np.diff(at) for _ids, at, _slots_of in streams]
    # a query's stopwords are dropped, so a name's never match: they do not lengthen it
    # (``dns_a_list`` is as long as ``dns_aaaa_list``)
    stop = np.zeros(size, dtype=np.intp)
    stop[[word_ids[w] for w in STOPWORDS if w in word_ids]] = 1
    seen = np.concatenate(([0], np.cumsum(stop[name_ids])))
    text_lengths[NAME] = text_lengths[NAME] - (seen[name_at[1:]] - seen[name_at[:-1]])
    slots = [np.fromiter(slots_of, dtype=np.intp, count=len(entries))
             for _ids, _at, slots_of in streams]
    lengths = tuple(tuple(lens[slot].tolist()) for lens, slot in zip(text_lengths, slots,
                                                                        strict=True))
    n = max(len(entries), 1)
    avg = tuple(sum(col) / n for col in lengths)
    tallies = [_tally(ids, at, size) for ids, at, _slots_of in streams]
    post_docs, post_tfs, post_at = _postings(size, len(entries), tallies, slots)
    return Index(tuple(e.name for e in entries), _DocCounts(words, tallies, slots), lengths,
                 avg, words, frozenset(vocab), word_ids, post_docs, post_tfs, post_at.tolist(),
                 memo={"post starts": post_at})


_DIGITS = bytes(c - 47 if 48 <= c <= 57 else c - 54 if 65 <= c <= 90 else c - 86 if 97 <= c <= 122
                else 0 for c in range(256))
"""Each byte's digit in base :data:`_RADIX`: 0-9 -> 1-10, a-z and A-Z -> 11-36, any other
byte 0 (not part of a word)."""
_RADIX = 37
_PACKED = 12
"""Longest word read as a number: a word of up to 12 digits 1-36 in base 37 is below
``37 ** 12 < 2 ** 63``, and no two such words are the same number."""


def _prose_tokens(descriptions: Sequence[str], descs: Sequence[str]
                  ) -> tuple[list[str], Any, Any]:
    """:func:`_listed_tokens` of the prose texts: each description's summary (up to its first
    sentence's end, :data:`_FIRST_SENTENCE`) and its rest, in turn, then each parameter
    description.

    The texts are joined as bytes (a char a byte: a non-ASCII char is a ``?``, no letter, as
    in :func:`plain_words`), the summaries' ends are found there (:func:`_summary_ends`) and
    the words read from them by :func:`_packed_tokens`, without slicing a text."""
    if PROSE_IDENTIFIERS:
        halves: list[str] = []
        for d in descriptions:
            end = _FIRST_SENTENCE.search(d)
            cut = end.start() if end else len(d)
            halves += (d[:cut], d[cut:])
        return _listed_tokens([text_words(t) for t in [*halves, *descs]])
    np = _np()
    texts = [*descriptions, *descs]
    raw = b"\x00".join([t.encode("ascii", "replace") for t in texts])
    lengths = np.fromiter(map(len, texts), dtype=np.intp, count=len(texts))
    starts = np.cumsum(lengths + 1) - lengths - 1
    split = len(descriptions)
    cuts = _summary_ends(raw, descriptions, starts[:split], (starts + lengths)[:split])
    # each text's tokens run from its bound to the next (a NUL, or a summary's end, before it)
    bounds = np.concatenate((np.stack((starts[:split], cuts), axis=1).ravel(), starts[split:],
                             [len(raw)]))
    return _packed_tokens(raw, bounds)


def _summary_ends(raw: bytes, descriptions: Sequence[str], starts: Any, ends: Any) -> Any:
    """Where each description's summary ends in ``raw`` (the texts' bytes, from ``starts`` to
    ``ends``): at its first ``.``, ``!`` or ``?`` followed by whitespace or the end
    (:data:`_FIRST_SENTENCE`), else at its end.

    numpy finds the first such byte pair of each description, reading a ``?`` (a non-ASCII
    char, maybe) as both punctuation and whitespace and a NUL as whitespace: a superset of
    the true ends. A pick that holds a ``?`` or is followed by a NUL inside the description is
    checked on the description itself, and when it is no sentence end the regular expression
    searches on from there. A regular expression search per description cost a tenth of the
    build."""
    np = _np()
    stop = int(ends[-1]) if len(ends) else 0  # the descriptions' bytes, and two more
    code = np.frombuffer(raw[:stop] + b"\x00\x00", dtype=np.uint8)
    after = code[1:]
    found = np.flatnonzero(((code[:-1] == 46) | (code[:-1] == 33) | (code[:-1] == 63))
                           & (((after >= 9) & (after <= 13)) | ((after >= 28) & (after <= 32))
                              | (after == 0) | (after == 63)))
    cuts = ends.copy()
    if not len(found):
        return cuts
    first = np.searchsorted(found, starts)
    held = first < len(found)  # an end after the start, and before the description's end
    held[held] = found[first[held]] < ends[held]
    cuts[held] = found[first[held]]
    unsure = held & ((code[cuts] == 63) | (code[cuts + 1] == 63)
                     | ((code[cuts + 1] == 0) & (cuts + 1 < ends)))
    for i in np.flatnonzero(unsure).tolist():
        d, at = descriptions[i], int(cuts[i] - starts[i])
        if d[at] not in ".!?" or (at + 1 < len(d) and not d[at + 1].isspace()):
            end = _FIRST_SENTENCE.search(d, at + 1)
            cuts[i] = starts[i] + (end.start() if end else len(d))
    return cuts


def _packed_tokens(raw: bytes, bounds: Any) -> tuple[list[str], Any, Any]:
    """:func:`_listed_tokens` of the :func:`plain_words` of texts given as ASCII bytes ``raw``
    (a non-letter byte between texts) and where each text starts (and the last ends):
    ``bounds``. The words are found and told apart with numpy, and only each distinct word
    becomes a string.

    A word of up to :data:`_PACKED` letters is read as a number in base :data:`_RADIX`, its
    letters the digits (:data:`_DIGITS`), the first the lowest. Longer words (1% of them)
    are sliced out as strings and numbered from ``2 ** 63`` up. Equal numbers are equal
    words: the words are the distinct numbers, each token the place of its number among them
    (:func:`_numbered`). Splitting ~300,000 words into strings and telling them apart by dict
    costs a few times this."""
    np = _np()
    if not raw:
        return [], np.zeros(0, dtype=np.intp), np.zeros(len(bounds), dtype=np.intp)
    digits = np.frombuffer(raw.translate(_DIGITS), dtype=np.uint8)
    edges = np.flatnonzero(np.diff(digits > 0, prepend=False, append=False))
    starts, ends = edges[0::2], edges[1::2]  # the words
    # digit t of every word longer than t, a digit at a time: the words by length (a radix
    # sort of bytes), those longer than t are a suffix
    lengths = np.minimum(ends - starts, _PACKED).astype(np.uint8)
    order = np.argsort(lengths, kind="stable")
    from_digit = np.searchsorted(lengths[order], np.arange(_PACKED), side="right").tolist()
    at = starts[order]
    packed = np.zeros(len(order), dtype=np.uint64)
    for t, k in enumerate(from_digit):
        packed[k:] += digits[at[k:] + t] * np.uint64(_RADIX ** t)
    numbers = np.empty_like(packed)
    numbers[order] = packed
    long = np.flatnonzero(ends - starts > _PACKED)
    text = raw.decode("ascii")
    if len(long):
        found = [text[a:b].lower() for a, b in zip(starts[long].tolist(), ends[long].tolist(),
                                                   strict=True)]
        numbered = dict(zip(dict.fromkeys(found), range(1 << 63, (1 << 63) + len(found)),
                            strict=False))
        numbers[long] = np.fromiter(map(numbered.__getitem__, found), dtype=np.uint64,
                                    count=len(found))
    first, which = _numbered(numbers)
    words = [text[a:b].lower() for a, b in zip(starts[first].tolist(), ends[first].tolist(),
                                               strict=True)]
    at = np.searchsorted(starts, bounds)
    return words, which, at


def _numbered(numbers: Any) -> tuple[Any, Any]:
    """(a place of each distinct number among ``numbers``, each number's place among the
    distinct ones) for an array of 64-bit numbers.

    The distinct numbers are sorted after multiplying by :data:`_MIX` (one-to-one) and
    bucketed by their top bits, as in :func:`_member_of`; each number's place is found by
    comparing along its bucket, each round only for the numbers not found yet (a binary
    search per number, ``searchsorted``, cost twice the sort; ``np.unique`` several sorts)."""
    np = _np()
    mixed = numbers * np.uint64(_MIX)
    ordered = np.sort(mixed)
    new = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    distinct = ordered[new]
    bits = len(distinct).bit_length() + 1
    shift = np.uint64(64 - bits)
    bucket_at = np.zeros((1 << bits) + 1, dtype=np.intp)
    np.cumsum(np.bincount((distinct >> shift).astype(np.intp), minlength=1 << bits),
              out=bucket_at[1:])
    place = bucket_at[(mixed >> shift).astype(np.intp)]
    left = np.flatnonzero(distinct[place] != mixed)
    while len(left):  # each number is among the distinct ones: found further along
        place[left] += 1
        left = left[distinct[place[left]] != mixed[left]]
    first = np.empty(len(distinct), dtype=np.intp)
    first[place] = np.arange(len(place))
    return first, place


def _listed_tokens(word_lists: Sequence[Sequence[str]]) -> tuple[list[str], Any, Any]:
    """(the distinct words, each word of the lists in turn as its index among them, where
    each list's words start: one more than the lists)."""
    distinct = list(dict.fromkeys(chain.from_iterable(word_lists)))
    return distinct, *_token_ids(word_lists, dict(zip(distinct, range(len(distinct)),
                                                      strict=True)))


def _token_ids(word_lists: Sequence[Sequence[str]], ids: Mapping[str, int]
               ) -> tuple[Any, Any]:
    """(each word of the lists in turn as its id, where each list's words start)."""
    np = _np()
    at = np.zeros(len(word_lists) + 1, dtype=np.intp)
    np.cumsum(np.fromiter(map(len, word_lists), dtype=np.intp, count=len(word_lists)),
              out=at[1:])
    return np.fromiter(map(ids.__getitem__, chain.from_iterable(word_lists)), dtype=np.intp,
                       count=int(at[-1])), at


def _gathered(ids: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """(the tokens ``ids[lo[k]:hi[k]]`` of every k in turn, where each k's tokens start)."""
    np = _np()
    size = hi - lo
    at = np.zeros(len(size) + 1, dtype=np.intp)
    np.cumsum(size, out=at[1:])
    return ids[np.repeat(lo - at[:-1], size) + np.arange(int(at[-1]))], at


def _grouped(ids: Any, at: Any, groups: Sequence[Sequence[int]]) -> tuple[Any, Any]:
    """(the tokens of each group's texts (indices into ``at``), group by group, where each
    group's tokens start)."""
    np = _np()
    members = np.fromiter(chain.from_iterable(groups), dtype=np.intp,
                          count=sum(map(len, groups)))
    tokens, member_at = _gathered(ids, at[members], at[members + 1])
    group_at = np.zeros(len(groups) + 1, dtype=np.intp)
    np.cumsum(np.fromiter(map(len, groups), dtype=np.intp, count=len(groups)),
              out=group_at[1:])
    return tokens, member_at[group_at]


Tally = tuple[Any, Any, Any]
"""A field's distinct texts' word counts: (word ids, their tfs, where each text's pairs start);
each text's words ascending."""


def _tally(ids: Any, at: Any, size: int) -> Tally:
    """The :data:`Tally` of texts given as token ids (``size`` words), by sorting the
    (text, word) keys (32-bit where they fit: half the cost of sorting 64-bit ones)."""
    np = _np()
    texts = len(at) - 1
    key = np.uint32 if texts * size < 1 << 32 else np.intp
    keys = np.repeat(np.arange(texts, dtype=key) * key(size), np.diff(at)) + ids.astype(key)
    keys.sort()
    first = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    where = np.flatnonzero(first)
    tfs = np.diff(np.append(where, len(keys)))
    keys = keys[where]
    owner = keys // size if size else keys
    pairs_at = np.zeros(texts + 1, dtype=np.intp)
    np.cumsum(np.bincount(owner, minlength=texts), out=pairs_at[1:])
    return (keys - owner * key(size)).astype(np.intp), tfs, pairs_at


class _DocCounts(Sequence[tuple[Mapping[str, int], ...]]):
    """:attr:`Index.counts`: per doc, per field, word -> tf, made from the fields' tallies
    when a doc is first read (an explanation reads a few docs per query; making every doc's
    dicts was a fifth of the build)."""

    def __init__(self, vocab: Sequence[str], tallies: Sequence[Tally], slots: Sequence[Any]
                 ) -> None:
        self._vocab = vocab
        self._tallies = tallies
        self._slots = [slot.tolist() for slot in slots]
        self._made: dict[int, tuple[Mapping[str, int], ...]] = {}

    def __len__(self) -> int:
        return len(self._slots[0]) if self._slots else 0

    @overload
    def __getitem__(self, doc: int) -> tuple[Mapping[str, int], ...]: ...
    @overload
    def __getitem__(self, doc: slice) -> Sequence[tuple[Mapping[str, int], ...]]: ...

    def __getitem__(self, doc: int | slice) -> Any:
        if isinstance(doc, slice):
            return [self[d] for d in range(len(self))[doc]]
        doc = range(len(self))[doc]  # IndexError past the end, as a tuple's
        found = self._made.get(doc)
        if found is None:
            vocab = self._vocab
            fields = []
            for (ids, tfs, at), slots in zip(self._tallies, self._slots, strict=True):
                lo, hi = int(at[slots[doc]]), int(at[slots[doc] + 1])
                fields.append(dict(zip(map(vocab.__getitem__, ids[lo:hi].tolist()),
                                       tfs[lo:hi].tolist(), strict=True)))
            found = self._made[doc] = tuple(fields)
        return found


def _postings(size: int, n: int, tallies: Sequence[Tally], slots: Sequence[Any]
              ) -> tuple[Any, Any, Any]:
    """(:attr:`Index.post_docs`, :attr:`Index.post_tfs`, :attr:`Index.post_at` as an array)
    from each field's tally (``size`` words) and each doc's slot among its texts.

    numpy repeats each text's (word, tf) pairs for each doc holding that text and sorts them
    by word with a stable sort, which keeps each word's docs ascending."""
    np = _np()
    docs_parts, tfs_parts, counts = [], [], []
    doc_ids = np.arange(n, dtype=np.intp)
    for (words, tfs, pairs_at), slot in zip(tallies, slots, strict=True):
        first = pairs_at[:-1]
        per_doc = np.diff(pairs_at)[slot]  # each doc's number of words in this field
        ends = np.cumsum(per_doc)
        at = np.repeat(first[slot] - (ends - per_doc), per_doc) + np.arange(int(ends[-1])
                                                                           if n else 0)
        held = words[at]
        # by word, docs staying ascending (a stable sort; numpy's is a radix sort, several
        # times faster, for 16-bit keys)
        order = np.argsort(held.astype(np.uint16) if size <= 1 << 16 else held, kind="stable")
        docs_parts.append(np.repeat(doc_ids, per_doc)[order])
        tfs_parts.append(tfs[at][order])
        counts.append(np.bincount(held, minlength=size))
    starts = np.zeros(size * len(counts) + 1, dtype=np.intp)
    if counts:
        np.cumsum(np.concatenate(counts), out=starts[1:])
    post_docs, post_tfs = (np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)
                           for parts in (docs_parts, tfs_parts))
    post_docs.flags.writeable = post_tfs.flags.writeable = False
    return post_docs, post_tfs, starts


def _with_runon_parts(streams: Sequence[tuple[Any, Any]], words: Sequence[str],
                      ids: Mapping[str, int], vocab: set[str]) -> list[tuple[Any, Any]]:
    """The identifier fields' token streams (ids, where each text's tokens start; ``words`` the
    vocabulary, ``ids`` its words' places) with the parts of each run-on word (:func:`_runon_splits`) added after it, in
    the text holding it, so they count as often as the word.

    Each word id is read through an expansion table (the word, then its parts, if any): one
    numpy gather per stream."""
    np = _np()
    held = np.zeros(len(words), dtype=bool)
    for tokens, _text_at in streams:
        held[tokens] = True
    runon = _runon_splits(map(words.__getitem__, np.flatnonzero(held).tolist()), vocab)
    if not runon:
        return list(streams)
    split = np.fromiter(map(ids.__getitem__, runon), dtype=np.intp, count=len(runon))
    parts = np.fromiter(map(len, runon.values()), dtype=np.intp, count=len(runon))
    grown = np.ones(len(words), dtype=np.intp)
    grown[split] += parts
    at = np.zeros(len(words) + 1, dtype=np.intp)
    np.cumsum(grown, out=at[1:])
    table = np.empty(int(at[-1]), dtype=np.intp)
    table[at[:-1]] = np.arange(len(words))
    ends = np.cumsum(parts)
    table[np.repeat(at[split] + 1 - (ends - parts), parts) + np.arange(int(ends[-1]))] = (
        np.fromiter(map(ids.__getitem__, chain.from_iterable(runon.values())), dtype=np.intp,
                    count=int(ends[-1])))
    out = []
    for tokens, text_at in streams:
        grown_tokens, token_at = _gathered(table, at[tokens], at[tokens + 1])
        out.append((grown_tokens, token_at[text_at]))
    return out


RUNON_HASH_BASE = 0x9E3779B97F4A7C15
"""Multiplier of the polynomial hash (mod 2**64) :func:`_runon_splits` proposes parts with. Odd,
so its powers are invertible mod 2**64; any odd value gives the same splits (proposals are
checked)."""
_MASK64 = (1 << 64) - 1


def _runon_splits(identifiers: Iterable[str], vocab: set[str]) -> dict[str, tuple[str, ...]]:
    """``{w: split_runon(w, vocab)}`` for the identifiers that split, worked out all at once.

    :func:`split_runon` slices a word at every cut and looks each slice up: for the union's
    ~11,000 identifiers of 6+ letters that was 15% of the build. Here numpy hashes every
    possible part of every word from the letters' prefix sums (a polynomial hash mod 2**64),
    keeps the parts whose hash is an indexed word's, and picks each word's best split by
    split_runon's rule (fewest parts, largest sum of squared lengths, earliest) among them.
    Equal strings hash equal, so the true splits are all among those proposed; the best
    proposal is then checked with string lookups: when it holds it is split_runon's answer,
    when it does not (two strings hashed alike) split_runon itself splits that word."""
    np = _np()
    cands = [w for w in identifiers if MIN_RUNON <= len(w) <= 3 * MAX_PART and w.isalpha()]
    out: dict[str, tuple[str, ...]] = {}
    if not "".join(cands).isascii():  # non-ASCII letters: those words one at a time
        out = {w: parts for w in cands if not w.isascii() and (parts := split_runon(w, vocab))}
        cands = [w for w in cands if w.isascii()]
    if not cands or not vocab:
        return out
    size = 3 * MAX_PART + 1
    powers = np.array(_powers(RUNON_HASH_BASE, size), dtype=np.uint64)
    unshift = np.array(_powers(pow(RUNON_HASH_BASE, -1, 1 << 64), size), dtype=np.uint64)
    words = list(vocab)
    lens, starts, sums = _prefix_hashes(words, powers)
    part = (lens >= MIN_PART) & (lens <= MAX_PART)  # longer words' hashes are not kept
    known = sums[(starts + lens)[part]] - sums[starts[part]]  # distinct words: distinct
    if not len(known):                                        # hashes, but for collisions
        return out

    indexed = _member_of(known)

    n, g, sums = _prefix_hashes(cands, powers)

    def piece(at: Any, a: Any, b: Any) -> Any:  # hash of letters a..b-1 of the word at ``at``
        return (sums[at + b] - sums[at + a]) * unshift[a]

    # heads: (word, cut) with the word's first ``cut`` letters an indexed word
    w, i = _ranges(np.full(len(cands), MIN_PART), np.minimum(n - MIN_PART, MAX_PART))
    at = g[w]
    hit = indexed(sums[at + i] - sums[at])
    w, i, at, size = w[hit], i[hit], at[hit], n[w[hit]]
    chosen: dict[int, tuple[int, ...]] = {}
    two = size - i <= MAX_PART
    two[two] = indexed(piece(at[two], i[two], size[two]))
    if two.any():  # any two-part split beats every three-part one
        w2, i2 = w[two], i[two]
        for c, cut in _best(np, w2, i2 * i2 + (size[two] - i2) ** 2, i2):
            chosen[c] = (cut,)
        rest = ~np.isin(w, w2)
        w, i, at, size = w[rest], i[rest], at[rest], size[rest]
    m = size - i
    k, j = _ranges(np.maximum(MIN_PART, m - MAX_PART), np.minimum(m - MIN_PART, MAX_PART))
    w, i, at, size = w[k], i[k], at[k], size[k]
    three = indexed(piece(at, i, i + j))
    three[three] = indexed(piece(at[three], (i + j)[three], size[three]))
    w, i, j, size = w[three], i[three], j[three], size[three]
    for c, (cut, cut2) in _best(np, w, i * i + j * j + (size - i - j) ** 2, i, j):
        chosen[c] = (cut, cut + cut2)
    for c, cuts in chosen.items():
        word = cands[c]
        cut = cuts[0]
        found: tuple[str, ...] = (word[:cut], word[cut:]) if len(cuts) == 1 else (
            word[:cut], word[cut:cuts[1]], word[cuts[1]:])
        if not vocab.issuperset(found):  # the hash proposed a wrong part
            found = split_runon(word, vocab)
        if found:
            out[word] = found
    return out


_MIX = 0xD6E8FEB86659FD93
"""Odd multiplier that spreads a hash's low bits into its top bits (a short word's polynomial
hash differs from its neighbours' in the low bits only) before the hashes are bucketed by their
top bits."""


def _member_of(known: Any) -> Callable[[Any], Any]:
    """A test of which of an array of hashes are in ``known`` (not empty).

    By buckets of the hashes' top bits (after multiplying by :data:`_MIX`, a one-to-one map):
    a binary search per hash (``searchsorted``) waits on ~15 dependent loads; a bucket (twice
    as many buckets as hashes) holds a few, compared in turn, each round only for the hashes
    whose bucket holds more."""
    np = _np()
    mix = np.uint64(_MIX)
    bits = int(len(known)).bit_length() + 1
    shift = np.uint64(64 - bits)
    mixed = np.sort(known * mix)
    bucket_at = np.zeros((1 << bits) + 1, dtype=np.intp)
    np.cumsum(np.bincount((mixed >> shift).astype(np.intp), minlength=1 << bits),
              out=bucket_at[1:])

    def member(hashes: Any) -> Any:
        wanted = hashes * mix
        bucket = (wanted >> shift).astype(np.intp)
        lo, hi = bucket_at[bucket], bucket_at[bucket + 1]
        found = np.zeros(len(hashes), dtype=bool)
        active = np.flatnonzero(hi > lo)
        lo, hi, wanted = lo[active], hi[active], wanted[active]
        while len(active):
            hit = mixed[lo] == wanted
            found[active[hit]] = True
            lo += 1
            more = ~hit & (lo < hi)
            active, lo, hi, wanted = active[more], lo[more], hi[more], wanted[more]
        return found

    return member


def _powers(base: int, size: int) -> list[int]:
    """``base ** 0 .. base ** (size - 1)`` mod 2**64."""
    out, x = [], 1
    for _ in range(size):
        out.append(x)
        x = x * base & _MASK64
    return out


def _prefix_hashes(words: Sequence[str], powers: Any) -> tuple[Any, Any, Any]:
    """(lengths, where each word starts in their joined letters, prefix sums ``S``): the hash of
    letters ``a..b-1`` of the word starting at ``g`` is ``(S[g + b] - S[g + a]) * powers[-a]``
    (mod 2**64; letter ``t`` of a word counts ``letter * powers[t]``). Letters past the powers'
    length wrap onto the last power (those words' hashes are not used)."""
    np = _np()
    lens = np.fromiter(map(len, words), dtype=np.intp, count=len(words))
    starts = np.cumsum(lens) - lens
    letters = np.frombuffer("".join(words).encode("ascii", "replace"), dtype=np.uint8)
    at = np.arange(len(letters)) - np.repeat(starts, lens)
    np.minimum(at, len(powers) - 1, out=at)
    sums = np.zeros(len(letters) + 1, dtype=np.uint64)
    np.cumsum(letters * powers[at], out=sums[1:])
    return lens, starts, sums


def _ranges(lo: Any, hi: Any) -> tuple[Any, Any]:
    """(which range, value) for every value of the ranges ``lo[r]..hi[r]`` (inclusive; empty
    when ``lo[r] > hi[r]``), range by range, ascending."""
    np = _np()
    size = np.maximum(hi - lo + 1, 0)
    which = np.repeat(np.arange(len(lo)), size)
    first = np.cumsum(size) - size
    return which, lo[which] + np.arange(int(size.sum())) - first[which]


def _best(np: Any, words: Any, score: Any, *cuts: Any) -> Iterator[tuple[int, Any]]:
    """(word, its cuts) of each word's highest score, the earliest cuts among equals."""
    if not len(words):
        return iter(())
    order = np.lexsort((*reversed(cuts), -score, words))
    words = words[order]
    first = np.ones(len(words), dtype=bool)
    first[1:] = words[1:] != words[:-1]
    found = [c[order][first].tolist() for c in cuts]
    return zip(words[first].tolist(), found[0] if len(cuts) == 1 else zip(*found, strict=True),
               strict=True)


def idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def stem_class(index: Index, word_stem: str) -> tuple[str, ...]:
    """Indexed words whose Snowball stem is ``word_stem`` and that start with it (or, for a
    stem ending in ``i``, with that prefix and ``y``: ``copi`` <- copy, copies), sorted."""
    return _stem_classes(index).get(word_stem, ())


def _stem_classes(index: Index) -> dict[str, tuple[str, ...]]:
    """Every :func:`stem_class` of the index, worked out when the first is asked for: the
    whole vocabulary stemmed in one call (tens of ms once, where asking class by class costs
    tens of microseconds for each new query word)."""
    found: dict[str, tuple[str, ...]] | None = index.memo.get("stem classes")
    if found is None:
        groups: dict[str, list[str]] = {}
        for w, s in zip(index.vocab, _stemmer().stemWords(index.vocab), strict=True):
            if w.startswith(s) or (s.endswith("i") and w.startswith(s[:-1] + "y")):
                group = groups.get(s)
                if group is None:
                    groups[s] = [w]
                else:
                    group.append(w)
        found = index.memo["stem classes"] = {s: tuple(ws) for s, ws in groups.items()}
        _typo_tables(index)  # the other pass over the vocabulary a query may need
    return found


def term_words(index: Index, term: tuple[str, str]) -> tuple[str, ...]:
    """The indexed words a term matches: the word itself, or its stem class."""
    kind, text = term
    if kind == "exact" or kind.startswith("syn "):
        return (text,) if text in index.vocab_set else ()
    return stem_class(index, text)


def term_weight(term: tuple[str, str], params: Params) -> float:
    """1 for an exact term, ``stem_weight`` for a stem class, ``synonym_weight`` for a
    synonym."""
    kind = term[0]
    return 1.0 if kind == "exact" else params.stem_weight if kind == "stem" \
        else params.synonym_weight


def _norms(index: Index, params: Params) -> tuple[list[float], ...]:
    """Per field, per doc: ``w_f / (1 - b_f + b_f * len / avglen)`` (0 where that is not
    positive); :func:`_np_norms` as lists."""
    memo = index.memo_for(params)
    found = memo.get("norms")
    if found is None:
        found = memo["norms"] = tuple(col.tolist() for col in _np_norms(index, params, memo))
    return found


def _np_norms(index: Index, params: Params, memo: dict[Any, Any]) -> tuple[Any, ...]:
    """Per field, a float64 array of the docs' norms (memoised per params): the same float
    operations, in the same order, as the formula written per doc."""
    found = memo.get("np_norms")
    if found is None:
        np = _np()
        cols = []
        for w, b, lengths, avg in zip(params.weights, params.b, index.lengths, index.avg,
                                      strict=True):
            norm = (1 - b + b * np.array(lengths, dtype=np.float64) / avg if avg
                    else np.ones(index.n, dtype=np.float64))
            col = np.zeros(index.n, dtype=np.float64)
            np.divide(w, norm, out=col, where=norm > 0)
            cols.append(col)
        found = memo["np_norms"] = tuple(cols)
    return found


def _field_parts(index: Index, doc: int, words: tuple[str, ...],
                 norms: Sequence[Sequence[float]]) -> list[float]:
    """Per field: weighted, length-normalised tf of ``words`` in ``doc``."""
    if len(words) == 1:
        w = words[0]
        c0, c1, c2, c3, c4, c5 = index.counts[doc]
        n0, n1, n2, n3, n4, n5 = norms
        return [c0[w] * n0[doc] if w in c0 else 0.0, c1[w] * n1[doc] if w in c1 else 0.0,
                c2[w] * n2[doc] if w in c2 else 0.0, c3[w] * n3[doc] if w in c3 else 0.0,
                c4[w] * n4[doc] if w in c4 else 0.0, c5[w] * n5[doc] if w in c5 else 0.0]
    parts = []
    for counts, norm in zip(index.counts[doc], norms, strict=True):
        tf = 0
        for w in words:
            if w in counts:
                tf += counts[w]
        parts.append(tf * norm[doc] if tf else 0.0)
    return parts


def _post_starts(index: Index) -> Any:
    """:attr:`Index.post_at` as a numpy array (the build leaves it in the memo)."""
    found = index.memo.get("post starts")
    if found is None:
        found = index.memo["post starts"] = _np().array(index.post_at, dtype=_np().intp)
    return found


def _np() -> Any:
    """numpy, imported when the first index is built (not when the app starts)."""
    import numpy

    return numpy


@functools.cache
def _empty() -> tuple[Any, Any]:
    """(docs, contributions) of a term no doc holds."""
    np = _np()
    docs, values = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64)
    docs.flags.writeable = values.flags.writeable = False
    return docs, values


def _x_and_df(index: Index, words: tuple[str, ...], params: Params, memo: dict[Any, Any]
              ) -> tuple[Any, Any, int]:
    """(docs ascending where ``x > 0``, their ``x``, the number of docs holding one of the
    words). ``x = sum_f tf_f * norm_f`` (``tf_f`` the words' summed counts) is added field by
    field in :data:`FIELDS` order, as the formula is written per doc.

    Read from :func:`_x_table` (every indexed word and stem class, worked out with a query's
    first use of the index); any other group of words is worked out on its own."""
    table = _x_table(index, params, memo)
    g = table.group.get(words)
    if g is None:
        return _x_arrays(index, (words,), params, memo).part(0)
    return table.part(g)


@dataclass(frozen=True)
class _XTable:
    """:func:`_x_and_df` of a list of word groups, in three flat arrays: group ``g``'s docs
    and ``x`` are ``docs[bounds[g]:bounds[g + 1]]``, ``values[...]``; its df ``df[g]``."""

    group: Mapping[tuple[str, ...], int]
    docs: Any
    values: Any
    bounds: Sequence[int]
    df: Sequence[int]

    def part(self, g: int) -> tuple[Any, Any, int]:
        lo, hi = self.bounds[g], self.bounds[g + 1]
        return self.docs[lo:hi], self.values[lo:hi], self.df[g]


def _x_table(index: Index, params: Params, memo: dict[Any, Any]) -> _XTable:
    """:func:`_x_and_df` of every indexed word alone and of every stem class of several
    words: the only groups a term asks for (:func:`term_words`). Worked out in one vectorised
    pass (tens of ms, once per index and params, with the stem classes), so no query pays for
    its new words: a long query's words cost a few ms when each was worked out on first use,
    and a gateway warms the index up before its first client asks."""
    found: _XTable | None = memo.get("x table")
    if found is None:
        groups: list[tuple[str, ...]] = [(w,) for w in index.vocab]
        groups.extend(ws for ws in _stem_classes(index).values() if len(ws) > 1)
        found = memo["x table"] = _x_arrays(index, groups, params, memo)
    return found


def _x_arrays(index: Index, groups: Sequence[tuple[str, ...]], params: Params,
              memo: dict[Any, Any]) -> _XTable:
    """:func:`_x_and_df` of each word group (their words indexed), all groups in one
    vectorised pass.

    Every group's postings go into one array, sorted by (group, doc) with each doc's fields in
    field order: a stem class's counts in a field are summed first (integers), then ``x`` per
    (group, doc) is a ``bincount`` of the weighted parts, which adds them in input order, so
    in :data:`FIELDS` order from 0: the same floats as adding them field by field."""
    np = _np()
    n = index.n
    size = len(index.vocab)
    fields = len(FIELDS)
    table = dict(zip(groups, range(len(groups)), strict=True))
    # every (field, group, word)'s postings chunk, field by field, group by group, its bounds
    # read from the postings' starts at once
    lengths = list(map(len, groups))
    word_ids = np.fromiter(map(index.word_ids.__getitem__, chain.from_iterable(groups)),
                           dtype=np.intp, count=sum(lengths))
    where = (np.arange(0, fields * size, size, dtype=np.intp)[:, None] + word_ids).ravel()
    at = _post_starts(index)
    lo, hi = at[where], at[where + 1]
    held = hi > lo
    if not held.any():
        docs, values = _empty()
        return _XTable(table, docs, values, [0] * (len(groups) + 1), [0] * len(groups))
    chunks = np.flatnonzero(held)  # field * words + word of each chunk holding postings
    size_of = (hi - lo)[chunks]
    ends = np.cumsum(size_of)
    where = np.repeat(lo[chunks] - (ends - size_of), size_of)
    where += np.arange(int(ends[-1]), dtype=np.intp)  # every chunk's postings, in turn
    word_group = np.repeat(np.arange(len(groups), dtype=np.intp), lengths)
    group_of = np.repeat(word_group[chunks % len(word_ids)], size_of)
    field_of = np.repeat(chunks // len(word_ids), size_of)
    doc_of = index.post_docs[where]
    # The postings come a field at a time (each field's (group, doc) ascending but for a stem
    # class's words): a stable sort by (group, doc) merges those runs and keeps each
    # (group, doc)'s fields in field order. (Group and doc are carried along: dividing the
    # sort key by n again costs an integer division per posting.)
    order = np.argsort(group_of * n + doc_of, kind="stable")
    group_of, field_of, doc_of = group_of[order], field_of[order], doc_of[order]
    tf = index.post_tfs[where[order]]
    starts = np.empty(len(doc_of), dtype=bool)  # each (group, doc)'s first posting
    starts[0] = True
    np.not_equal(doc_of[1:], doc_of[:-1], out=starts[1:])
    starts[1:] |= group_of[1:] != group_of[:-1]
    if len(doc_of) > 1 and max(lengths) > 1:
        # a stem class's words in one field of one doc: their counts summed first
        first = starts.copy()
        first[1:] |= field_of[1:] != field_of[:-1]
        if not first.all():  # a (group, doc)'s first posting is kept: starts stay starts
            tf = np.bincount(np.cumsum(first) - 1, weights=tf)
            group_of, field_of, doc_of, starts = (
                group_of[first], field_of[first], doc_of[first], starts[first])
    row = np.cumsum(starts) - 1
    norms = memo.get("np_norms_flat")
    if norms is None:  # field f's norm of doc d at f * n + d: one flat gather per posting
        norms = memo["np_norms_flat"] = np.concatenate(_np_norms(index, params, memo))
    # each (group, doc)'s field parts added in field order, from 0
    x = np.bincount(row, weights=tf * norms[field_of * n + doc_of])  # (a 2-d gather: 3x time)
    owner, docs = group_of[starts], doc_of[starts]
    # a (group, doc)'s lowest field is its first posting's: the summary's words are the
    # description's, so it counts to df when that is a field before SUMMARY
    df = np.bincount(owner[field_of[starts] < SUMMARY], minlength=len(groups)).tolist()
    positive = x > 0
    owner = owner[positive]
    docs = docs[positive]
    values = x[positive]
    docs.flags.writeable = values.flags.writeable = False
    bounds = np.searchsorted(owner, np.arange(len(groups) + 1)).tolist()
    return _XTable(table, docs, values, bounds, df)


BATCH_MIN = 4
"""A query with at least this many terms not yet worked out derives their contributions
together (:func:`_batch_values`): one pass of numpy calls for all of them, where one term at a
time costs a pass each."""


def _prepare(index: Index, terms: Sequence[tuple[str, str]], params: Params,
             memo: dict[Any, Any]) -> None:
    """Work out together ``terms`` (not yet memoised, no synonym among them), when there are
    at least :data:`BATCH_MIN` of them."""
    plain = [(term, words) for term in terms
             if " " not in term[0] and (words := term_words(index, term))
             and term_weight(term, params)]
    if len(plain) >= BATCH_MIN:
        _batch_values(index, plain, params, memo)


def _batch_values(index: Index, terms: Sequence[tuple[tuple[str, str], tuple[str, ...]]],
                  params: Params, memo: dict[Any, Any]) -> None:
    """Memoise :func:`_vec` of each (term, its words) (no synonym), their contributions worked
    out in one array: per element the same float operations as :func:`_vec` does a term at a
    time."""
    np = _np()
    k1 = params.k1
    parts = [_x_and_df(index, words, params, memo) for _term, words in terms]
    scale = [term_weight(term, params) * idf(index.n, df) * (k1 + 1)
             for (term, _w), (_d, _x, df) in zip(terms, parts, strict=True)]
    sizes = [len(x) for _d, x, _df in parts]
    x = np.concatenate([x for _d, x, _df in parts])
    values = np.repeat(np.array(scale, dtype=np.float64), sizes) * x / (k1 + x)
    values.flags.writeable = False
    at = 0
    for (term, _w), (docs, _x, _df), size in zip(terms, parts, sizes, strict=True):
        memo[("vec", term)] = (docs, values[at:at + size])
        at += size


def _vec(index: Index, term: tuple[str, str], params: Params,
         memo: dict[Any, Any] | None = None) -> tuple[Any, Any]:
    """(docs ascending, contributions): this term's score contribution in each doc where it
    is positive, as two arrays (memoised per params).

    The contribution is ``weight * idf * (k1 + 1) * x / (k1 + x)`` (:func:`_x_and_df`): the
    same float operations, in the same order, as the formula written out per doc
    (``tests/engine/bm25f_oracle.py``), done a field's postings at a time."""
    if memo is None:
        memo = index.memo_for(params)
    key = ("vec", term)
    found: tuple[Any, Any] | None = memo.get(key)
    if found is not None:
        return found
    words = term_words(index, term)
    weight = term_weight(term, params)
    if not words or not weight:  # not memoised: a word the catalog lacks costs a look-up,
        return _empty()          # and a stream of made-up words must not grow the memo
    docs, x, df = _x_and_df(index, words, params, memo)
    k1 = params.k1
    values = weight * idf(index.n, df) * (k1 + 1) * x / (k1 + x)
    if len(docs) and " " in term[0]:  # a synonym: not where its source word is found
        held = _synonym_held(index, term)
        if held is not None:
            keep = ~held[docs]
            docs, values = docs[keep], values[keep]
    docs.flags.writeable = values.flags.writeable = False  # memoised: shared by every query
    found = memo[key] = (docs, values)
    return found


def _contributions(index: Index, term: tuple[str, str], params: Params,
                   memo: dict[Any, Any] | None = None) -> dict[int, float]:
    """doc -> this term's score contribution (:func:`_vec` as a dict; memoised per
    params)."""
    if memo is None:
        memo = index.memo_for(params)
    found: dict[int, float] | None = memo.get(term)
    if found is None:
        docs, values = _vec(index, term, params, memo)
        found = dict(zip(docs.tolist(), values.tolist(), strict=True))
        if found:  # none for a term no doc holds (see _vec)
            memo[term] = found
    return found


# --------------------------------------------------------------------------- queries


def query_terms(index: Index, query: str) -> tuple[tuple[str, str], ...]:
    """Distinct ``("exact", word)`` and ``("stem", stem)`` terms of a query, in query order."""
    words: list[str] = []
    mended = taken = 0
    for w in dict.fromkeys(text_words(query)):  # a repeated word adds no term
        if w in STOPWORDS:
            continue
        if taken == MAX_QUERY_WORDS:
            break
        taken += 1
        words.append(w)
        if mended < MAX_MENDED and (w not in index.vocab_set or (  # an indexed word is in
                QUERY_RUNON_DF > 0 and index.df(w) <= QUERY_RUNON_DF)):  # one doc at least
            mended += 1
            parts = split_runon(w, index.vocab_set)
            words.extend(parts or _typo_fix(index, w))
    terms: dict[tuple[str, str], None] = {}
    for w in words:
        terms[("exact", w)] = None
        if len(w) >= MIN_STEM and not w.isdigit():
            terms[("stem", stem(w))] = None
    return tuple(terms) + _synonym_terms(index, words)


def _synonym_terms(index: Index, words: list[str]) -> tuple[tuple[str, str], ...]:
    """``("syn <sources>", word)`` terms for the catalog's synonyms of the query words
    (:data:`SYNONYM_GROUPS`), skipping any whose stem is a query word's stem. ``<sources>`` are
    the query words the synonym stands in for (space-separated): it counts only in docs holding
    none of them (:func:`_synonym_held`)."""
    table = _synonym_table()
    stems = list(map(stem, words))
    groups = [(w, group) for w, s in zip(words, stems, strict=True) if (group := table.get(s))]
    if not groups:
        return ()
    known = set(stems)
    seen: set[str] = set()
    out: dict[tuple[str, str], None] = {}
    for _w, group in groups:
        for x in group:
            if x in seen or stem(x) in known:
                continue
            seen.add(x)
            if x in index.vocab_set:
                sources = dict.fromkeys(v for v, other in groups if x in other)
                out[("syn " + " ".join(sources), x)] = None
    return tuple(out)


def _synonym_held(index: Index, term: tuple[str, str]) -> Any:
    """Which docs hold a source word of a synonym term (the word or its stem class), as a bool
    array (None when none does): a synonym stands in for its word, so it adds nothing where the
    word itself is found. Memoised per source word."""
    held = None
    for w in term[0].split()[1:]:
        key = ("synonym source", w)
        found = index.memo.get(key)
        if found is None:
            found = index.memo[key] = _docs_holding(index, (w, *stem_class(index, stem(w))))
        if found is not False:
            held = found if held is None else held | found
    return held


def _docs_holding(index: Index, words: Iterable[str]) -> Any:
    """Which docs hold one of ``words`` in a field (:meth:`Index.docs_with`), as a bool array;
    False when none does."""
    np = _np()
    ids = index.word_ids
    found = [ids[w] for w in dict.fromkeys(words) if w in ids]
    if not found:
        return False
    at = _post_starts(index)
    where = (np.arange(0, SUMMARY * len(index.vocab), len(index.vocab), dtype=np.intp)[:, None]
             + np.array(found, dtype=np.intp)).ravel()  # the summary's words are the
    lo, hi = at[where], at[where + 1]                   # description's
    size = hi - lo
    if not size.any():
        return False
    ends = np.cumsum(size)
    docs = index.post_docs[np.repeat(lo - (ends - size), size) + np.arange(int(ends[-1]))]
    held = np.zeros(index.n, dtype=bool)
    held[docs] = True
    return held


MIN_TYPO = 5
"""Shortest query word that is read as a typo when the catalog lacks it (and its stem)."""
MAX_QUERY_WORDS = 4096
"""A query's first this many distinct content words are searched; the rest are dropped (the
real query sets have at most 2,983, a pasted base64 image). Each word costs a few
microseconds whether the catalog holds it or not: a 1 MB query stays well under a second."""
MAX_MENDED = 64
"""A query's first this many distinct words the catalog lacks are split (run-on) or read as
typos; later ones are matched as they are. The real query sets have at most 16 such words but
for one pasted base64 image (2,682); a 1 MB query of made-up words took 20 s, most of it
typo look-ups."""
TYPO_MEMO_MAX = 65536
"""Typo answers kept per index (then forgotten and found again): a gateway's queries must not
grow it without bound."""


def _near_words(index: Index, word: str) -> set[str]:
    """The catalog's words one deletion, adjacent transposition, substitution or insertion of
    a letter (``a``-``z``) away from ``word`` (not ``word`` itself).

    Deletions and transpositions are looked up one by one. A substitution or insertion at
    position ``i`` keeps ``word[:i]`` in front and the rest of ``word`` behind: the catalog's
    words of the right length that start with the longer of the two are found by bisection
    in those words sorted (forwards, or reversed for a longer end) and checked for the other.
    The same set as generating every edit and keeping those in the catalog, a fourth of the
    time for a typical word (``tests/engine/test_bm25f.py``)."""
    n = len(word)
    vocab = index.vocab_set
    out = {d for i in range(n) if (d := word[:i] + word[i + 1:]) in vocab}
    out.update(t for i in range(n - 1)
               if (t := word[:i] + word[i + 1] + word[i] + word[i + 2:]) in vocab)
    forwards, backwards = _typo_tables(index)
    for size, skip in ((n, 1), (n + 1, 0)):  # a substitution replaces a letter, an insertion
        ahead = forwards.get(size)            # none
        if not ahead:
            continue
        behind = backwards[size]
        for i in range(n + 1 - skip):
            head, tail = word[:i], word[i + skip:]
            if len(head) >= len(tail):
                out.update([w for w in ahead[bisect_left(ahead, head):
                                             bisect_left(ahead, head + "{")]  # "{" follows z
                            if w.endswith(tail)])
            else:
                key, end = tail[::-1], head[::-1]
                out.update([r[::-1] for r in behind[bisect_left(behind, key):
                                                    bisect_left(behind, key + "{")]
                            if r.endswith(end)])
    out.discard(word)
    return out


def _typo_tables(index: Index) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """The catalog's ``a``-``z`` words by length, sorted, and the same reversed, sorted.
    Worked out with the stem classes, among the first query's one-time derivations (about
    10 ms; a length at a time, as typos ask, moved that cost into the next few queries)."""
    found: tuple[dict[int, list[str]], dict[int, list[str]]] | None = index.memo.get("typo tables")
    if found is None:
        words = [w for w in index.vocab if w.isalpha() and w.isascii()]  # all lower case
        words.sort(key=len)  # stable: each length's words stay sorted
        forwards = {size: list(same) for size, same in groupby(words, len)}
        backwards = {size: sorted([w[::-1] for w in same]) for size, same in forwards.items()}
        found = index.memo["typo tables"] = (forwards, backwards)
    return found


def _typo_fix(index: Index, word: str) -> tuple[str, ...]:
    """(the catalog word one edit away, most docs first, then alphabetical) for a query word of
    :data:`MIN_TYPO` to :data:`MAX_PART` letters that the catalog lacks, its stem too; else
    ()."""
    if (len(word) < MIN_TYPO or len(word) > MAX_PART or not word.isalpha()
            or not word.isascii()):
        return ()
    memo: dict[str, tuple[str, ...]] = index.memo.setdefault("typos", {})
    found = memo.get(word)
    if found is None:
        found = ()
        if word not in index.vocab_set and not stem_class(index, stem(word)):
            near = sorted(_near_words(index, word))
            if near:
                found = (max(near, key=index.df),)
        if len(memo) >= TYPO_MEMO_MAX:
            memo.clear()
        memo[word] = found
    return found


def term_label(term: tuple[str, str]) -> str:
    """``create`` for an exact term, ``creat~`` for a stem class, ``add (synonym)`` for a
    synonym."""
    kind, text = term
    return text if kind == "exact" else text + "~" if kind == "stem" else text + " (synonym)"


Terms = tuple[tuple[str, float], ...]
Parts = tuple[tuple[str, str, float], ...]


@dataclass(frozen=True, eq=False)
class Bm25fHit:
    """One hit. Its explanation (``terms``, ``fields``) is worked out when first read: a
    ``tool_search`` reply and the recall benchmark never read it (10-20% of a query's time)."""

    doc: int
    name: str
    score: float
    explain_now: Callable[[], tuple[Terms, Parts]] = field(repr=False)
    fallback: bool = False

    @cached_property
    def _explained(self) -> tuple[Terms, Parts]:
        return self.explain_now()

    @property
    def terms(self) -> Terms:
        """(term label, contribution) per query term, query order; zero for a term not
        matched."""
        return self._explained[0]

    @property
    def fields(self) -> Parts:
        """(term label, field, contribution) for every non-zero part; they sum to
        ``score``."""
        return self._explained[1]


class _FieldedHit(Hit):
    """The profile's :class:`~toolsearch.bm25.Hit` for a :class:`Bm25fHit`: ``terms`` and
    ``fields`` are read from it when asked for, so the explanation is only worked out for the
    hits someone looks at."""

    _hit: Bm25fHit  # not a field: this class is no dataclass of its own

    def __init__(self, entry: CatalogEntry, hit: Bm25fHit) -> None:
        for name, value in (("entry", entry), ("score", hit.score), ("fallback", hit.fallback),
                            ("exact", False), ("_hit", hit)):
            object.__setattr__(self, name, value)  # frozen: set once, here

    @property
    def terms(self) -> Terms:
        return self._hit.terms

    @property
    def fields(self) -> tuple[tuple[str, str, float], ...]:
        return tuple((fld, term, value) for term, fld, value in self._hit.fields)


DENSE_SHARE = 8
"""A term matching at least 1/DENSE_SHARE of the docs is a common term: its contributions are
added first (the order the scores' floats are summed in)."""


def _total_vec(index: Index, terms: Iterable[tuple[str, str]], params: Params) -> Any:
    """Every doc's score (a float64 array, 0 where no term matches): each doc's
    contributions added one term at a time, the common terms first, then the others, each in
    query order."""
    np = _np()
    memo = index.memo_for(params)
    _x_table(index, params, memo)  # with the first query whatever its words (a warm-up search)
    keys = [("vec", term) for term in terms]
    vecs = list(map(memo.get, keys))
    new = [key[1] for key, vec in zip(keys, vecs, strict=True) if vec is None]
    if len(new) >= BATCH_MIN:
        _prepare(index, new, params, memo)
    common: list[tuple[Any, Any]] = []
    rare: list[tuple[Any, Any]] = []
    for (_vec_key, term), vec in zip(keys, vecs, strict=True):
        docs, values = vec if vec is not None else _vec(index, term, params, memo)
        if len(docs):
            (common if len(docs) * DENSE_SHARE >= index.n else rare).append((docs, values))
    ordered = common + rare
    if len(ordered) < 2:
        total = np.zeros(index.n, dtype=np.float64)
        for docs, values in ordered:
            total[docs] += values
        return total
    # one bincount: it adds each doc's values in input order, from 0, as adding the terms'
    # arrays one by one does (the same floats)
    return np.bincount(np.concatenate([docs for docs, _values in ordered]),
                       weights=np.concatenate([values for _docs, values in ordered]),
                       minlength=index.n)


def _positive(total: Any) -> dict[int, float]:
    """doc -> score of the docs scoring above 0, in doc order."""
    docs = _np().flatnonzero(total > 0)
    return dict(zip(docs.tolist(), total[docs].tolist(), strict=True))


def _top(total: Any, limit: int | None) -> dict[int, float]:
    """The best ``limit`` docs (all, for None) scoring above 0 -> score, best first, ties in
    doc order."""
    np = _np()
    docs = np.flatnonzero(total > 0)
    if limit is not None and len(docs) > limit:
        scored = total[docs]
        kth = np.partition(scored, len(docs) - limit)[len(docs) - limit]
        docs = docs[scored >= kth]  # the top, and whatever ties with its last
    docs = docs[np.lexsort((docs, -total[docs]))][:limit]
    return dict(zip(docs.tolist(), total[docs].tolist(), strict=True))


def scores(index: Index, query: str, params: Params = DEFAULT_PARAMS) -> dict[int, float]:
    """doc -> BM25F score for every doc matching any query term."""
    return _positive(_total_vec(index, query_terms(index, query), params))


def explain(index: Index, doc: int, terms: Iterable[tuple[str, str]],
            params: Params = DEFAULT_PARAMS) -> tuple[tuple[tuple[str, float], ...],
                                                      tuple[tuple[str, str, float], ...]]:
    """(per-term totals, per-term per-field parts) of one doc's score."""
    return _explainer(index, tuple(terms), params)(doc)


def _explainer(index: Index, terms: tuple[tuple[str, str], ...], params: Params
               ) -> Callable[[int], tuple[tuple[tuple[str, float], ...],
                                          tuple[tuple[str, str, float], ...]]]:
    """:func:`explain` for any doc, with the terms' labels, contributions and words looked up
    once (a search explains each of its hits)."""
    norms = _norms(index, params)
    memo = index.memo_for(params)
    prepared = [(term_label(term), _contributions(index, term, params, memo),
                 term_words(index, term)) for term in terms]

    def one(doc: int) -> tuple[tuple[tuple[str, float], ...], tuple[tuple[str, str, float], ...]]:
        per_term: list[tuple[str, float]] = []
        parts: list[tuple[str, str, float]] = []
        for label, found, words in prepared:
            value = found.get(doc, 0.0)
            per_term.append((label, value))
            if not value:
                continue
            by_field = _field_parts(index, doc, words, norms)
            whole = sum(by_field)
            parts.extend([(label, FIELDS[f], value * x / whole)
                          for f, x in enumerate(by_field) if x > 0])
        return tuple(per_term), tuple(parts)

    return one


def stopword_terms(index: Index, query: str) -> tuple[tuple[str, str], ...]:
    """The query's distinct stopwords that occur in the catalog, as exact terms."""
    return tuple(dict.fromkeys(
        ("exact", w) for w in text_words(query) if w in STOPWORDS and w in index.vocab_set))


def _ranking(index: Index, query: str, params: Params, limit: int | None
             ) -> tuple[list[int], dict[int, float], tuple[tuple[str, str], ...],
                        tuple[tuple[str, str], ...], int]:
    """(docs best first, their scores, content terms, stopword terms, number of content hits).

    Docs matching a content word come first, by BM25F. When fewer than ``limit`` do (or for
    the full ranking, ``limit`` None), the docs matching only the query's stopwords follow, by
    their stopword score scaled by :data:`STOPWORD_FILL` and kept below the last content hit,
    so a query whose words the catalog lacks still gets the seed's answer."""
    terms = query_terms(index, query)
    found = _top(_total_vec(index, terms, params), limit)
    top = list(found)
    content = len(top)
    stops: tuple[tuple[str, str], ...] = ()
    if limit is None or content < limit:
        stops = stopword_terms(index, query)
        extra = _positive(_total_vec(index, stops, params)) if stops else {}
        rest = sorted((d for d in extra if d not in found), key=lambda d: (-extra[d], d))
        if limit is not None:
            rest = rest[:limit - content]
        ceiling = found[top[-1]] * 0.5 if top else math.inf
        for d in rest:
            found[d] = min(extra[d] * STOPWORD_FILL, ceiling)
            top.append(d)
    return top, found, terms, stops, content


def search(index: Index, query: str, limit: int = 5, params: Params = DEFAULT_PARAMS
           ) -> tuple[Bm25fHit, ...]:
    """The top ``limit`` tools for a query, best first (ties keep catalog order).

    No content word and no stopword of the query occurs in the catalog: the seed's
    name-substring fallback (flat 0.1)."""
    if not index.n or limit <= 0:
        return ()
    top, found, terms, stops, content = _ranking(index, query, params, limit)
    if top:
        hits = []
        # prepared once, when the first hit of this search is read, for all of them
        prepared = functools.cache(lambda: _explainer(index, terms, params))

        def explain_content(doc: int) -> tuple[Terms, Parts]:
            return prepared()(doc)

        for rank, doc in enumerate(top):
            if rank < content:
                explain_now = functools.partial(explain_content, doc)
            else:
                explain_now = functools.partial(_explain_fill, index, doc, terms, stops, params, found[doc])
            hits.append(Bm25fHit(doc, index.names[doc], found[doc], explain_now))
        return tuple(hits)
    needle = query.lower()
    if not needle.strip():
        return ()
    zero: tuple[Terms, Parts] = (tuple((term_label(t), 0.0) for t in terms), ())
    return tuple(Bm25fHit(i, name, FALLBACK_SCORE, lambda: zero, fallback=True)
                 for i, name in enumerate(index.names) if needle in name.lower())[:limit]


def _explain_fill(index: Index, doc: int, terms: tuple[tuple[str, str], ...],
                  stops: tuple[tuple[str, str], ...], params: Params, score: float
                  ) -> tuple[tuple[tuple[str, float], ...], tuple[tuple[str, str, float], ...]]:
    """A stopword-only hit: its content terms are zero, its stopwords share ``score``."""
    stop_terms, stop_parts = explain(index, doc, stops, params)
    whole = sum(v for _t, v in stop_terms) or 1.0
    scale = score / whole
    per_term = tuple((term_label(t), 0.0) for t in terms) + tuple(
        (f"{t} (stopword)", v * scale) for t, v in stop_terms)
    parts = tuple((f"{t} (stopword)", f, v * scale) for t, f, v in stop_parts)
    return per_term, parts


def _positions(index: Index, name: str) -> tuple[int, ...]:
    by_name: dict[str, tuple[int, ...]] | None = index.memo.get("names")
    if by_name is None:
        lists: dict[str, list[int]] = {}
        for d, n in enumerate(index.names):
            lists.setdefault(n, []).append(d)
        by_name = index.memo["names"] = {n: tuple(ds) for n, ds in lists.items()}
    return by_name.get(name, ())


def _above(total: Any, doc: int, exclude: Any = None) -> int:
    """How many docs scoring above 0 rank above ``doc`` (higher score, or equal score and
    earlier), leaving out those where ``exclude`` (a bool array) is set."""
    np = _np()
    mine = total[doc]
    above = (total > mine) | ((total == mine) & (np.arange(len(total)) < doc))
    above &= total > 0
    if exclude is not None:
        above &= ~exclude
    return int(np.count_nonzero(above))


def rank_of(index: Index, query: str, name: str, params: Params = DEFAULT_PARAMS
            ) -> int | None:
    """1-based position of ``name`` in the full ranking (what an unlimited :func:`search`
    returns), or None when it is not returned at all."""
    docs = _positions(index, name)
    if not docs or not index.n:
        return None
    terms = query_terms(index, query)
    total = _total_vec(index, terms, params)
    content = [d for d in docs if total[d] > 0]
    if content:
        return 1 + min(_above(total, d) for d in content)
    in_content = total > 0
    positive = int(in_content.sum())
    stops = stopword_terms(index, query)
    extra = _total_vec(index, stops, params)
    found = [d for d in docs if extra[d] > 0]
    if found:
        return positive + 1 + min(_above(extra, d, in_content) for d in found)
    if positive or (extra > 0).any():
        return None
    hits = search(index, query, index.n, params)
    return next((i for i, h in enumerate(hits, 1) if h.name == name), None)


# --------------------------------------------------------------------------- the profile's retrieval


def words(text: str | None) -> list[str]:
    """The bm25f tokenizer as the app shows it: the query's words (identifiers split,
    compounds kept), stopwords dropped, each once."""
    return list(dict.fromkeys(w for w in text_words(text or "") if w not in STOPWORDS))


def name_search_text(tool_def: Any, source_name: str = "") -> str:
    """What ``CatalogEntry.tokens`` holds under bm25f: the name words and the server label
    (the fielded index reads every field from the def itself)."""
    return f"{def_name(tool_def)} {source_label(source_name) if source_name else ''}"


class _DocFrequency(Mapping[str, int]):
    """``Catalog.df`` of a bm25f catalog: docs containing a word in any field (lazy)."""

    def __init__(self, index: Index) -> None:
        self._index = index

    def __getitem__(self, word: str) -> int:
        if word not in self._index.vocab_set:
            raise KeyError(word)
        return self._index.df(word)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.vocab)

    def __len__(self) -> int:
        return len(self._index.vocab)


_INDEX_KEY = "bm25f.index"


def index_of(catalog: Catalog) -> Index:
    """The fielded index a bm25f catalog keeps (built on first use for any other catalog)."""
    found = catalog.memo.get(_INDEX_KEY)
    if found is None:
        found = catalog.memo[_INDEX_KEY] = build_index(catalog.entries)
    return found


class Bm25fRetrieval:
    """Fielded BM25 with identifier splitting and exact + stem terms (module docstring);
    positive scores only, else the seed's 0.1 name-substring fallback."""

    no_match_note = ("no match: no query word (nor its stem) occurs in any deferred tool and no "
                     "tool name contains the query")
    not_admitted_note = ""

    def __init__(self, params: Params = DEFAULT_PARAMS) -> None:
        self.params = params

    def build(self, entries: tuple[CatalogEntry, ...], profile: Profile) -> Catalog:
        index = build_index(entries)
        return Catalog(entries=entries, profile=profile, df=_DocFrequency(index),
                       memo={_INDEX_KEY: index})

    def search(self, catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]:
        entries = catalog.entries
        return tuple(_FieldedHit(entries[h.doc], h)
                     for h in search(index_of(catalog), query, limit, self.params))

    def rank_of(self, catalog: Catalog, query: str, name: str) -> int | None:
        return rank_of(index_of(catalog), query, name, self.params)
