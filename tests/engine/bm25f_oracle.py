"""The ``bm25f`` retrieval as it was before the speed work (issue 11), kept verbatim as a slow
reference oracle: tests/engine/test_bm25f_oracle.py checks the fast module ranks and explains
exactly as this did. Not used by the engine. Two ranking changes made on purpose since then are
reproduced here, written independently: the typo rule (:func:`_typo_fix`) and the verb
synonyms (:func:`_synonym_terms`); so are the bounds on a query's words (:func:`query_terms`).

Original docstring: Fielded BM25 (BM25F) over a catalog (SPEC §9).

Each tool is six fields: its **name** words (the part after ``mcp__<server>__``), its server
**label**, its **description**, its top-level **parameter names**, their **parameter
descriptions**, and the **summary** (the description's first sentence, counted again). The
weights (:class:`Params`) were tuned on half of each query set: name 2.5x, label 3x, parameter
descriptions 0.3x, the rest 1x.

Words: ``[A-Za-z0-9]+`` runs joined by ``_`` / ``-`` form one identifier; in the name, label
and parameter names an identifier is split at the separators and at camelCase humps, each part
is a word and so is the joined compound (``getFileContents`` -> get, file, contents,
getfilecontents; ``VMs`` -> vm, vms); prose is read as plain lower-case words (splitting its
identifiers too did not help and doubled the build). A name's length leaves out its
stopwords. A run-on identifier in a name or parameter
name is also split into words found elsewhere in the catalog (``serverendpoint`` -> server,
endpoint). Every word is indexed exactly; its Snowball stem class
(every indexed word with the same stem) is a second term, so ``creating`` matches ``create``
while an exact match still scores more.

Query side: the same splitting, English stopwords dropped, each distinct word counted once, each
distinct stem counted once. When fewer tools than asked match a content word, tools matching
only the query's stopwords fill the rest (scaled to 1%, always below the content hits); when
nothing matches at all, the seed's name-substring fallback (0.1).

Scoring: for term t and doc d, ``tf~ = sum_f w_f * tf_f / (1 - b_f + b_f * len_f / avglen_f)``,
``score += weight_t * idf(t) * tf~ * (k1 + 1) / (k1 + tf~)`` with the seed's idf
``ln(1 + (N - df + .5) / (df + .5))`` (``weight_t`` is 1 for exact terms and ``stem_weight``
for stem terms). Each hit carries its per-field, per-term contributions (they sum to the
score).

The index (per-doc, per-field word counts) depends only on the catalog's content and lives in
the catalog's memo; the parameters (:class:`Params`) only change per-term memos, so a parameter
change never rebuilds it. Postings and stem classes are derived lazily per query word (one pass
over the docs for all of a query's new words) and memoised, which keeps the build to a few
C-level passes in pure Python.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_left
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from toolsearch.bm25 import Hit
from toolsearch.caches import register_cache, register_cache_fn
from toolsearch.catalog import Catalog, CatalogEntry, source_label, stem
from toolsearch.classify import def_name
from toolsearch.tooldefs import def_parameters

if TYPE_CHECKING:
    from toolsearch.profile import Profile

try:  # the C helper behind Counter(): counting into a plain dict without Counter's overhead
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons
    def _count_elements(mapping: dict[str, int], iterable: Iterable[str]) -> None:
        for item in iterable:
            mapping[item] = mapping.get(item, 0) + 1

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

MIN_RUNON = 6
"""Shortest identifier tried for a run-on split; each part must have at least 3 letters."""
MIN_PART = 3
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


@register_cache_fn("bm25f_oracle.identifier_words")
@lru_cache(maxsize=65536)
def identifier_words(ident: str) -> tuple[str, ...]:
    """Lower-case parts of one identifier, then the joined compound when there are several."""
    parts: list[str] = []
    for piece in _SEPS.split(ident):
        if _ACRONYM_PLURAL.fullmatch(piece):  # VMs -> vm (the compound adds vms)
            parts.append(piece[:-1].lower())
            continue
        found = _PARTS.findall(piece)
        parts.extend(p.lower() for p in found) if found else parts.append(piece.lower())
    if len(parts) > 1:
        parts.append("".join(parts))
    return tuple(parts)


_extras_cache: dict[str, tuple[str, ...]] = register_cache("bm25f_oracle.extras", {})


def _extras(ident: str) -> tuple[str, ...]:
    """The words of a compound identifier that the plain ``[a-z0-9]+`` pass does not give."""
    found = _extras_cache.get(ident)
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
    words = plain_words(text)
    for ident in _COMPOUND.findall(text):
        words.extend(_extras(ident))
    return words


def words_of(text: str) -> list[str]:
    return text_words(text) if PROSE_IDENTIFIERS else plain_words(text)


def split_runon(word: str, vocab: Container[str]) -> tuple[str, ...]:
    """``serverendpoint`` -> (server, endpoint) when 2 or 3 parts are all in ``vocab``; else ().

    Parts have at least :data:`MIN_PART` letters; fewest parts win, then the most even-handed
    longest parts (largest sum of squared lengths), then the earliest split."""
    n = len(word)
    if n < MIN_RUNON or not word.isalpha():
        return ()
    best: tuple[int, int, tuple[str, ...]] | None = None
    for i in range(MIN_PART, n - MIN_PART + 1):
        head = word[:i]
        if head not in vocab:
            continue
        rest = word[i:]
        if rest in vocab:
            cand: tuple[int, int, tuple[str, ...]] = (2, -(i * i + (n - i) ** 2), (head, rest))
            if best is None or cand[:2] < best[:2]:
                best = cand
            continue
        if best is not None and best[0] == 2:
            continue
        for j in range(MIN_PART, len(rest) - MIN_PART + 1):
            mid, tail = rest[:j], rest[j:]
            if mid in vocab and tail in vocab:
                cand = (3, -(i * i + j * j + len(tail) ** 2), (head, mid, tail))
                if best is None or cand[:2] < best[:2]:
                    best = cand
    return best[2] if best is not None else ()


# --------------------------------------------------------------------------- index


_FIRST_SENTENCE = re.compile(r"[.!?](?:\s|$)")


def _fields_of(entry: EntryLike) -> tuple[str, ...]:
    name = entry.name
    if name.startswith("mcp__"):
        _server, sep, tool = name[5:].partition("__")
        name = tool if sep and tool else name[5:]
    label = source_label(entry.source_name) if entry.source_name else ""
    params = def_parameters(entry.schema)
    props = params.get("properties") if isinstance(params, Mapping) else None
    keys = descs = ""
    if isinstance(props, Mapping) and props:
        keys = " ".join(str(k) for k in props)
        descs = " ".join(spec["description"] for spec in props.values()
                         if isinstance(spec, Mapping) and isinstance(spec.get("description"), str))
    description = entry.description or ""
    end = _FIRST_SENTENCE.search(description)
    return (name, label, description, keys, descs,
            description[:end.start()] if end else description)


@dataclass
class Index:
    """Per-doc, per-field word counts and lengths. Built once per content.

    Postings are derived lazily, per query word, by one pass over the docs' word sets (and
    memoised), which keeps the build to a few C-level passes."""

    names: tuple[str, ...]
    counts: tuple[tuple[Mapping[str, int], ...], ...]
    """Per doc, per field (:data:`FIELDS` order): word -> tf."""
    words: tuple[set[str], ...]
    """Per doc: every word in any field."""
    lengths: tuple[tuple[int, ...], ...]
    """Per field, per doc: number of indexed words."""
    avg: tuple[float, ...]
    vocab: list[str] = field(default_factory=list, repr=False)
    """Sorted indexed words (prefix search for stem classes, run-on splits of queries)."""
    vocab_set: frozenset[str] = field(default=frozenset(), repr=False)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    """Postings, stem classes and per-(params, term) contributions; derived data only."""

    @property
    def n(self) -> int:
        return len(self.names)

    def docs_with(self, word: str) -> tuple[int, ...]:
        """Docs containing ``word`` in any field (memoised)."""
        key = ("docs", word)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = (
                tuple(d for d, ws in enumerate(self.words) if word in ws)
                if word in self.vocab_set else ())
        return found

    def prefetch(self, words: Iterable[str]) -> None:
        """Find the docs of several words in one pass over the docs (what a cold query needs)."""
        missing = {w for w in words if w in self.vocab_set and ("docs", w) not in self.memo}
        if len(missing) < 2:
            return
        found: dict[str, list[int]] = {w: [] for w in missing}
        for d, ws in enumerate(self.words):
            for w in ws & missing if len(ws) > len(missing) else missing & ws:
                found[w].append(d)
        for w, docs in found.items():
            self.memo[("docs", w)] = tuple(docs)

    def df(self, word: str) -> int:
        return len(self.docs_with(word))

    def memo_for(self, params: Params) -> dict[Any, Any]:
        """The memo of everything derived under ``params`` (norms, contributions)."""
        found = self.memo.get(params)
        if found is None:
            found = self.memo[params] = {}
        return found


def build_index(entries: Sequence[EntryLike]) -> Index:
    """Index the entries' fields (see the module docstring)."""
    docs: list[list[dict[str, int]]] = []
    doc_words: list[set[str]] = []
    lengths: list[list[int]] = [[] for _ in FIELDS]
    for entry in entries:
        fields = []
        for f, text in enumerate(_fields_of(entry)):
            words = words_of(text) if f in _PROSE_FIELDS else text_words(text)
            lengths[f].append(len(words))
            counts: dict[str, int] = {}
            if words:
                _count_elements(counts, words)
            fields.append(counts)
        docs.append(fields)
        doc_words.append(set(fields[0]).union(*fields[1:]))
    vocab = set().union(*doc_words)
    split_vocab = {w for w in vocab if len(w) >= MIN_PART}
    identifiers: set[str] = set()
    for fields in docs:
        for f in _SPLIT_FIELDS:
            identifiers.update(fields[f])
    runon = {w: parts for w in identifiers if (parts := split_runon(w, split_vocab))}
    for doc, fields in enumerate(docs):
        for f in _SPLIT_FIELDS:
            counts = fields[f]
            found = counts.keys() & runon.keys()
            if not found:
                continue
            added = 0
            for w, c in [(w, counts[w]) for w in found]:  # counts before any part is added
                parts = runon[w]
                for part in parts:
                    counts[part] = counts.get(part, 0) + c
                added += c * len(parts)
                doc_words[doc].update(parts)
            lengths[f][doc] += added
    for doc, fields in enumerate(docs):  # a name's stopwords do not count in its length
        lengths[0][doc] -= sum(c for w, c in fields[0].items() if w in STOPWORDS)
    n = max(len(docs), 1)
    avg = tuple(sum(col) / n for col in lengths)
    return Index(tuple(e.name for e in entries),
                 tuple(tuple(fields) for fields in docs), tuple(doc_words),
                 tuple(tuple(col) for col in lengths), avg, sorted(vocab), frozenset(vocab))


def idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def stem_class(index: Index, word_stem: str) -> tuple[str, ...]:
    """Indexed words whose Snowball stem is ``word_stem`` (memoised on the index).

    Candidates share the stem as a prefix (or, for a stem ending in ``i``, that prefix with
    ``y``: ``copi`` <- copy, copies)."""
    key = ("class", word_stem)
    found = index.memo.get(key)
    if found is None:
        heads = {word_stem}
        if word_stem.endswith("i"):
            heads.add(word_stem[:-1] + "y")
        members = []
        vocab = index.vocab
        for head in heads:
            i = bisect_left(vocab, head)
            while i < len(vocab) and vocab[i].startswith(head):
                if stem(vocab[i]) == word_stem:
                    members.append(vocab[i])
                i += 1
        found = index.memo[key] = tuple(sorted(members))
    return found


def term_words(index: Index, term: tuple[str, str]) -> tuple[str, ...]:
    """The indexed words a term matches: the word itself, or its stem class."""
    kind, text = term[0].split()[0], term[1]
    if kind in ("exact", "syn"):
        return (text,) if text in index.vocab_set else ()
    return stem_class(index, text)


def _term_docs(index: Index, term: tuple[str, str]) -> tuple[int, ...]:
    words = term_words(index, term)
    if len(words) == 1:
        return index.docs_with(words[0])
    key = ("termdocs", term)
    found = index.memo.get(key)
    if found is None:
        found = index.memo[key] = tuple(sorted(set().union(
            *(index.docs_with(w) for w in words)))) if words else ()
    return found


def _norms(index: Index, params: Params) -> tuple[tuple[float, ...], ...]:
    """Per field, per doc: w_f / (1 - b_f + b_f * len / avglen)."""
    memo = index.memo_for(params)
    found = memo.get("norms")
    if found is None:
        found = tuple(
            tuple(w / norm if (norm := 1 - b + b * length / avg if avg else 1.0) > 0 else 0.0
                  for length in col)
            for w, b, col, avg in zip(params.weights, params.b, index.lengths, index.avg,
                                      strict=True))
        memo["norms"] = found
    return found


def _field_parts(index: Index, doc: int, words: tuple[str, ...],
                 norms: tuple[tuple[float, ...], ...]) -> list[float]:
    """Per field: weighted, length-normalised tf of ``words`` in ``doc``."""
    parts = []
    for f, counts in enumerate(index.counts[doc]):
        tf = 0
        for w in words:
            tf += counts.get(w, 0)
        parts.append(tf * norms[f][doc] if tf else 0.0)
    return parts


def _contributions(index: Index, term: tuple[str, str], params: Params,
                   memo: dict[Any, Any] | None = None) -> dict[int, float]:
    """doc -> this term's score contribution (memoised per params)."""
    if memo is None:
        memo = index.memo_for(params)
    found = memo.get(term)
    if found is None:
        docs = _term_docs(index, term)
        found = {}
        if docs:
            norms = _norms(index, params)
            words = term_words(index, term)
            weight = {"exact": 1.0, "stem": params.stem_weight,
                      "syn": params.synonym_weight}[term[0].split()[0]]
            scale = weight * idf(index.n, len(docs)) * (params.k1 + 1)
            k1 = params.k1
            counts = index.counts
            if len(words) == 1:
                w = words[0]
                for d in docs:
                    x = 0.0
                    for f, c in enumerate(counts[d]):
                        tf = c.get(w)
                        if tf:
                            x += tf * norms[f][d]
                    if x > 0:
                        found[d] = scale * x / (k1 + x)
            else:
                for d in docs:
                    x = sum(_field_parts(index, d, words, norms))
                    if x > 0:
                        found[d] = scale * x / (k1 + x)
            if term[0].startswith("syn"):  # a synonym counts only where its words are not
                found = {d: v for d, v in found.items()
                         if v and not _holds_source(index, d, term)}
        memo[term] = found
    return found


# --------------------------------------------------------------------------- queries


def _one_edit(a: str, b: str) -> bool:
    """``b`` is one deletion, insertion, substitution or adjacent transposition from ``a``."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                   and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _typo_fix(index: Index, word: str) -> tuple[str, ...]:
    """Added with the typo rule (issue 11, after the speed work; a ranking change on purpose):
    a query word of 5+ letters that the catalog lacks, its stem class too, also matches the
    catalog word one edit away that most docs hold (ties: alphabetical). Written here as a
    plain scan of the vocabulary, independently of the fast module's edit generation."""
    if len(word) < 5 or not word.isalpha() or not word.isascii() or word in index.vocab_set:
        return ()
    if stem_class(index, stem(word)):
        return ()
    near = [v for v in index.vocab if _one_edit(word, v)]
    if not near:
        return ()
    best = max(index.df(v) for v in near)
    return (min(v for v in near if index.df(v) == best),)


def query_terms(index: Index, query: str) -> tuple[tuple[str, str], ...]:
    """Distinct ``("exact", word)`` and ``("stem", stem)`` terms of a query, in query order."""
    words: list[str] = []
    seen: set[str] = set()
    budget = {"words": 4096, "mended": 64}  # bounds added since (MAX_QUERY_WORDS, MAX_MENDED)
    for w in text_words(query):
        if w in seen or w in STOPWORDS:
            continue
        seen.add(w)
        if budget["words"] == 0:
            break
        budget["words"] -= 1
        words.append(w)
        if budget["mended"] and (w not in index.vocab_set or index.df(w) <= QUERY_RUNON_DF):
            budget["mended"] -= 1
            parts = split_runon(w, index.vocab_set)
            words.extend(parts or _typo_fix(index, w))
    terms: dict[tuple[str, str], None] = {}
    for w in words:
        terms[("exact", w)] = None
        if len(w) >= MIN_STEM and not w.isdigit():
            terms[("stem", stem(w))] = None
    return tuple(terms) + _synonym_terms(index, words)


SYNONYMS = (
    ("create", "add", "new", "make", "insert"), ("delete", "remove", "erase", "drop"),
    ("get", "fetch", "retrieve", "read", "obtain"), ("list", "enumerate"),
    ("update", "edit", "modify", "change"), ("search", "find", "lookup", "query"),
    ("run", "execute", "invoke"), ("start", "launch", "begin"),
    ("stop", "end", "terminate", "kill", "halt"), ("send", "post"), ("choose", "pick", "select"),
    ("write", "save", "store"), ("show", "display", "view"), ("close", "shut"),
    ("download", "save"), ("upload", "attach"),
)


def _synonym_terms(index: Index, words: list[str]) -> tuple[tuple[str, str], ...]:
    """Added with the verb synonyms (issue 11, a ranking change on purpose), written
    independently: for each query word in order, each group (table order) holding a word of
    its stem, each member (group order) whose stem no query word has and not taken before adds
    its exact term when the catalog has the word. The kind names the query words whose groups
    hold the member (query order): ``("syn create new", "add")``."""
    query_stems = [stem(w) for w in words]
    taken: list[str] = []
    out: list[tuple[str, str]] = []
    for w in words:
        for group in SYNONYMS:
            if not any(stem(m) == stem(w) for m in group):
                continue
            for x in group:
                if stem(x) in query_stems or x in taken:
                    continue
                taken.append(x)
                sources = []
                for v in words:
                    if v not in sources and any(
                            x in g and any(stem(m) == stem(v) for m in g) for g in SYNONYMS):
                        sources.append(v)
                term = (" ".join(["syn", *sources]), x)
                if term_words(index, term):
                    out.append(term)
    return tuple(out)


def _holds_source(index: Index, doc: int, term: tuple[str, str]) -> bool:
    """The doc holds a word whose stem is a source word's stem, or a source word itself."""
    sources = term[0].split()[1:]
    mine = index.words[doc]
    return any(w in mine or any(v in mine for v in stem_class(index, stem(w))) for w in sources)


def term_label(term: tuple[str, str]) -> str:
    """``create`` for an exact term, ``creat~`` for a stem class; a synonym's with
    `` (synonym)``."""
    kind, text = term[0].split()[0], term[1]
    label = text if kind in ("exact", "syn") else text + "~"
    return label + " (synonym)" if kind.startswith("syn") else label


@dataclass(frozen=True)
class Bm25fHit:
    doc: int
    name: str
    score: float
    terms: tuple[tuple[str, float], ...]
    """(term label, contribution) per query term, query order; zero for a term not matched."""
    fields: tuple[tuple[str, str, float], ...]
    """(term label, field, contribution) for every non-zero part; they sum to ``score``."""
    fallback: bool = False


DENSE_SHARE = 8
"""A term matching at least 1/DENSE_SHARE of the docs is summed as a dense vector."""


def _dense(index: Index, term: tuple[str, str], params: Params,
           memo: dict[Any, Any]) -> list[float]:
    key = ("dense", term)
    found = memo.get(key)
    if found is None:
        found = [0.0] * index.n
        for doc, value in _contributions(index, term, params, memo).items():
            found[doc] = value
        memo[key] = found
    return found


def _totals(index: Index, terms: Iterable[tuple[str, str]], params: Params
            ) -> list[float] | dict[int, float]:
    """Scores of the docs matching any term: a dense list when a common term is involved,
    else a doc -> score dict (only the matching docs)."""
    dense: list[list[float]] = []
    sparse: list[dict[int, float]] = []
    memo = index.memo_for(params)
    cold = [t for t in terms if t not in memo]
    if len(cold) > 1:
        index.prefetch(w for t in cold for w in term_words(index, t))
    for term in terms:
        found = _contributions(index, term, params, memo)
        if not found:
            continue
        if len(found) * DENSE_SHARE >= index.n:
            dense.append(_dense(index, term, params, memo))
        else:
            sparse.append(found)
    total: list[float] | dict[int, float]
    if dense:
        total = list(map(sum, zip(*dense, strict=True))) if len(dense) > 1 else list(dense[0])
        for found in sparse:
            for doc, value in found.items():
                total[doc] += value
        return total
    total = {}
    get = total.get
    for found in sparse:
        for doc, value in found.items():
            total[doc] = get(doc, 0.0) + value
    return total


def _top(total: list[float] | dict[int, float], limit: int) -> list[int]:
    """The best ``limit`` docs with a positive score, ties in doc order."""
    if isinstance(total, dict):
        return heapq.nsmallest(limit, total, key=lambda d: (-total[d], d))
    best = heapq.nlargest(limit, total)
    floor = best[-1] if best else 0.0
    if floor <= 0:
        floor = math.ulp(0.0)
    candidates = [d for d, v in enumerate(total) if v >= floor]
    candidates.sort(key=lambda d: -total[d])  # stable: ties keep doc order
    return candidates[:limit]


def scores(index: Index, query: str, params: Params = DEFAULT_PARAMS) -> dict[int, float]:
    """doc -> BM25F score for every doc matching any query term."""
    total = _totals(index, query_terms(index, query), params)
    if isinstance(total, dict):
        return total
    return {d: v for d, v in enumerate(total) if v > 0}


def explain(index: Index, doc: int, terms: Iterable[tuple[str, str]],
            params: Params = DEFAULT_PARAMS) -> tuple[tuple[tuple[str, float], ...],
                                                      tuple[tuple[str, str, float], ...]]:
    """(per-term totals, per-term per-field parts) of one doc's score."""
    norms = _norms(index, params)
    memo = index.memo_for(params)
    per_term: list[tuple[str, float]] = []
    parts: list[tuple[str, str, float]] = []
    for term in terms:
        label = term_label(term)
        value = _contributions(index, term, params, memo).get(doc, 0.0)
        per_term.append((label, value))
        if not value:
            continue
        by_field = _field_parts(index, doc, term_words(index, term), norms)
        whole = sum(by_field)
        parts.extend((label, FIELDS[f], value * x / whole)
                     for f, x in enumerate(by_field) if x > 0)
    return tuple(per_term), tuple(parts)


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
    total = _totals(index, terms, params)
    if limit is None:
        top = [d for d in (range(len(total)) if isinstance(total, list) else total)
               if total[d] > 0]
        top.sort(key=lambda d: -total[d])
        if isinstance(total, dict):
            top.sort(key=lambda d: (-total[d], d))
    else:
        top = _top(total, limit)
    found = {d: total[d] for d in top}
    content = len(top)
    stops: tuple[tuple[str, str], ...] = ()
    if limit is None or content < limit:
        stops = stopword_terms(index, query)
        extra = _totals(index, stops, params) if stops else {}
        if isinstance(extra, list):
            extra = {d: v for d, v in enumerate(extra) if v > 0}
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
        for rank, doc in enumerate(top):
            if rank < content:
                per_term, parts = explain(index, doc, terms, params)
            else:
                per_term, parts = _explain_fill(index, doc, terms, stops, params, found[doc])
            hits.append(Bm25fHit(doc, index.names[doc], found[doc], per_term, parts))
        return tuple(hits)
    needle = query.lower()
    if not needle.strip():
        return ()
    zero = tuple((term_label(t), 0.0) for t in terms)
    return tuple(Bm25fHit(i, name, FALLBACK_SCORE, zero, (), fallback=True)
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


def _above(total: list[float] | dict[int, float], doc: int, exclude: Iterable[int] = ()
           ) -> int:
    """How many docs rank above ``doc`` (higher score, or equal score and earlier)."""
    items = enumerate(total) if isinstance(total, list) else total.items()
    mine = total[doc]
    skip = set(exclude)
    return sum(1 for d, v in items
               if v > 0 and (v > mine or (v == mine and d < doc)) and d not in skip)


def rank_of(index: Index, query: str, name: str, params: Params = DEFAULT_PARAMS
            ) -> int | None:
    """1-based position of ``name`` in the full ranking (what an unlimited :func:`search`
    returns), or None when it is not returned at all."""
    docs = _positions(index, name)
    if not docs or not index.n:
        return None
    terms = query_terms(index, query)
    total = _totals(index, terms, params)
    content = [d for d in docs if _score_in(total, d) > 0]
    if content:
        return 1 + min(_above(total, d) for d in content)
    positive = (sum(1 for v in total if v > 0) if isinstance(total, list)
                else sum(1 for v in total.values() if v > 0))
    stops = stopword_terms(index, query)
    extra = _totals(index, stops, params) if stops else {}
    found = [d for d in docs if _score_in(extra, d) > 0]
    if found:
        in_content = ([d for d, v in enumerate(total) if v > 0] if isinstance(total, list)
                      else [d for d, v in total.items() if v > 0])
        return positive + 1 + min(_above(extra, d, in_content) for d in found)
    if positive or stops and any(v > 0 for v in (extra if isinstance(extra, list)
                                                 else extra.values())):
        return None
    hits = search(index, query, index.n, params)
    return next((i for i, h in enumerate(hits, 1) if h.name == name), None)


def _score_in(total: list[float] | dict[int, float], doc: int) -> float:
    return total[doc] if isinstance(total, list) else total.get(doc, 0.0)


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
        return tuple(
            Hit(entries[h.doc], h.score, h.terms,
                fallback=h.fallback,
                fields=tuple((fld, term, value) for term, fld, value in h.fields))
            for h in search(index_of(catalog), query, limit, self.params))

    def rank_of(self, catalog: Catalog, query: str, name: str) -> int | None:
        return rank_of(index_of(catalog), query, name, self.params)
