"""TC105: secret material in a catalog.

Two detectors, over every value of a tool (and, last, of the whole document), data values
included (`default`, `examples`, `enum`, `const`, annotations, `_meta`, ...):

* **key names**: a key such as `apiKey`, `token`, `password`, `secret`, `credential(s)`
  holding a string value that is not a placeholder; and the `default`/`const`/`example(s)`/
  `enum` values of a schema property named so;
* **token shapes**, anywhere (keys' values, descriptions, examples): cloud keys (AWS, Google),
  GitHub/GitLab/Slack/npm/Hugging Face/OpenAI/Anthropic/Stripe/SendGrid tokens, private key
  blocks, JSON Web Tokens, Slack webhook URLs, Azure storage keys.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule
from toolcat.formats import registry
from toolcat.model import FILE_MARK

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context
    from toolcat.model import Tool

# (what, literals every match contains, regular expression)
_SHAPES: list[tuple[str, tuple[str, ...], str]] = [
    ("an AWS access key id", ("AKIA", "ASIA", "ABIA", "ACCA"),
     r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("a Google API key", ("AIza",), r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
     r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ("a GitHub fine-grained token", ("github_pat_",), r"\bgithub_pat_[A-Za-z0-9_]{50,}\b"),
    ("a GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
    ("a Slack token", ("xox",), r"\bxox[abposr]-[0-9A-Za-z]{6,}-[0-9A-Za-z-]{6,}"),
    ("a Slack webhook URL", ("hooks.slack.com",),
     r"https://hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{16,}"),
    # the header alone is prose ("the file must start with -----BEGIN PRIVATE KEY-----"):
    # key material must follow it
    ("a private key", ("PRIVATE KEY",),
     r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----"
     r"(?:\s|\\[rn])*(?:[A-Za-z0-9-]+: [^\n]*\n\s*)*[A-Za-z0-9+/=]{40}"),
    ("a JSON Web Token", ("eyJ",),
     r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    ("an Anthropic API key", ("sk-ant-",), r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{40,}"),
    ("an OpenAI API key", ("T3BlbkFJ",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}"
                                         r"T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    ("an OpenAI project key", ("sk-proj-",), r"\bsk-proj-[A-Za-z0-9_-]{40,}"),
    ("an OpenAI API key (legacy)", ("sk-",), r"\bsk-[A-Za-z0-9]{48}\b"),
    ("a Stripe live key", ("_live_",), r"\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}\b"),
    ("a SendGrid API key", ("SG.",), r"\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,45}\b"),
    ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("an Azure storage account key", ("AccountKey=",), r"AccountKey=[A-Za-z0-9+/=]{60,}"),
]
# The token shapes' expressions are compiled when a literal of theirs is first found (most
# catalogs have none: compiling them all costs ~15 ms of a small catalog's lint)
_ANY_SOURCE = "|".join(f"(?P<s{i}>{rx})" for i, (_n, _l, rx) in enumerate(_SHAPES))
_BY_LITERAL: dict[str, list[str]] = {}   # literal -> the expressions whose matches hold it
for _n, _lits, _rx in _SHAPES:
    for _lit in _lits:
        _BY_LITERAL.setdefault(_lit, []).append(_rx)
_COMPILED: dict[str, re.Pattern] = {}


def _compiled(source: str) -> re.Pattern:
    rx = _COMPILED.get(source)
    if rx is None:
        rx = _COMPILED[source] = re.compile(source)
    return rx


# every occurrence of every literal (overlapping ones too): one regular expression pass per
# *anchor*, a character the literal contains, each literal taking the first of _ANCHORS it
# holds. An expression that starts with a one-character literal scans in C about 10x faster
# per literal than one str.find pass each, and a pass costs about the same whatever follows
# that character (~1.3 ms on a 3 MB spec), so the few anchors shared by many literals (6
# passes) beat one pass per literal's first character (14: 23 -> 12 ms on Stripe's spec). A
# pass matches the anchor where one of its literals is written around it (look-behind and
# look-ahead), so only real literal occurrences come back to Python.
_ANCHORS = "A_-.Jx"
_FINDERS: list[tuple[re.Pattern, list[tuple[str, int]]]] = []   # (pass, [(literal, offset)])
_by_anchor: dict[str, list[tuple[str, int]]] = {}
for _lit in _BY_LITERAL:
    _c = next(c for c in _ANCHORS if c in _lit)   # StopIteration: add an anchor for it
    _by_anchor.setdefault(_c, []).append((_lit, _lit.index(_c)))
for _c, _at in _by_anchor.items():
    _alts = [(f"(?<={re.escape(_lit[:_off + 1])})" if _off else "")
             + (f"(?={re.escape(_lit[_off + 1:])})" if _off + 1 < len(_lit) else "")
             for _lit, _off in _at]
    _FINDERS.append((re.compile(re.escape(_c) + "(?:" + "|".join(_alts) + ")"), _at))
del _by_anchor, _alts
# any literal at all (each token shape's match contains one of its literals): a quick "no"
# for a string before the full alternation of token shapes, which is slow to fail (20x)
_by_first: dict[str, list[str]] = {}
for _lit in _BY_LITERAL:
    _by_first.setdefault(_lit[0], []).append(_lit)
_ANY_LITERAL = re.compile("|".join(
    re.escape(c) + "(?:" + "|".join(re.escape(x[1:]) for x in lits) + ")"
    for c, lits in _by_first.items()))
del _by_first
#: from this length on a text is searched for a literal with the anchor passes of
#: :data:`_FINDERS` (:func:`_holds_literal`)
_LONG = 100
_CUT = re.compile(r"[\s\\]")
_MAX_TOKEN = 2000  # no token above reaches further than this past its literal
_MIN_SHAPE_LEN = 16

_SECRET_SUFFIXES = ("apikey", "apitoken", "accesstoken", "authtoken", "refreshtoken",
                    "bearertoken", "sessiontoken", "secrettoken", "idtoken", "token",
                    "password", "passwd", "passphrase", "secret", "clientsecret",
                    "secretkey", "privatekey", "accesskey", "credential", "credentials",
                    "apisecret", "signingkey")
_NOT_SECRET_PREFIXES = ("page", "nextpage", "prevpage", "previouspage", "continuation",
                        "sync", "cursor", "max", "min", "num", "count", "csrf", "xsrf",
                        "has", "is", "use", "show", "requires", "need")
_HOLDERS = ("default", "const", "example", "examples", "enum")
_SCHEMA_MAPS = frozenset(("$defs", "definitions"))
# marks of a placeholder found anywhere in a value (symbols, and words long enough not to
# occur by chance inside a random key)...
_PLACEHOLDER_MARKS = ("your", "xxx", "***", "<", ">", "${", "{{", "example", "placeholder",
                      "changeme", "change_me", "redacted", "dummy", "sample", "replace",
                      "...", "…", "insert", "token", "secret", "password", "passwd",
                      "apikey", "api_key")
# ...and short words that count only as words of their own ("abc" is inside
# "sk-abcdefghijklmnop...", a real key's shape; "abc-123" and "test_key" are placeholders)
_PLACEHOLDER_WORDS = frozenset({"todo", "fake", "foo", "bar", "123", "abc", "test", "xyz"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# an UPPER_SNAKE identifier names an environment variable or a constant, not a value
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_PLAIN_WORDS = frozenset({"string", "none", "null", "true", "false", "undefined", "password",
                          "secret", "token", "apikey", "api_key", "api-key", "bearer", "basic",
                          "required", "optional", "n/a", "na", "empty", "hidden"})
_KEY_CACHE: dict[str, bool] = {}
#: the keys of :data:`_KEY_CACHE` that name no secret (an object whose keys are all in it
#: holds nothing :func:`scan` reports by name: one set test for the object)
_PLAIN_KEYS: set[str] = set()


def secret_key(key: str) -> bool:
    """Does a key name say its value is a secret?"""
    r = _KEY_CACHE.get(key)
    if r is None:
        k = re.sub(r"[^a-z0-9]", "", key.lower())
        r = k.endswith(_SECRET_SUFFIXES) and not k.startswith(_NOT_SECRET_PREFIXES) \
            and not k.endswith(("tokens",))
        if len(_KEY_CACHE) < 50000:
            _KEY_CACHE[key] = r
            if not r:
                _PLAIN_KEYS.add(key)
    return r


def placeholder(value: str, key: str = "") -> bool:
    v = value.strip()
    low = v.lower()
    if len(v) < 6 or low in _PLAIN_WORDS or low == key.lower():
        return True
    if v[0] in "$%" or low.startswith(("env:", "http://", "https://", "file:", "vault:",
                                       "secret:", "arn:", "#/")):
        # ("#/...": a reference to a schema, as a discriminator's mapping gives one for each
        # value: Okta's `yubikey_token: '#/components/schemas/AuthenticatorKeyYubikey'`)
        return True
    if len(set(low)) <= 2:
        return True
    if " " in v and len(v.split()) > 2:  # prose, not a credential
        return True
    if _ENV_NAME.fullmatch(v):
        return True
    if v.isalpha() and (v.islower() or v.isupper()) and len(v) < 24:
        # one plain word ("nocheck": Atlassian's X-Atlassian-Token flag): a credential is
        # machine-made, with digits or mixed case
        return True
    if any(w in low for w in _PLACEHOLDER_MARKS):
        return True
    return any(w.lower() in _PLACEHOLDER_WORDS for w in _WORDS.findall(v))


def _holds_literal(text: str) -> bool:
    """Whether ``text`` holds a literal of a token shape: :data:`_ANY_LITERAL` searched, or
    in a long text (a description, a JSON source line of one) the anchor passes of
    :data:`_FINDERS`, each matching where a literal is written around its anchor, which
    together say the same: the alternation enters at most characters of prose (its first
    characters are common letters), the passes only at their few anchors (200 characters:
    2.5 -> 1.2 us; 500 and more: 8.9 -> 2.7 us)."""
    if len(text) < _LONG:
        return _ANY_LITERAL.search(text) is not None
    return any(finder.search(text) is not None for finder, _at in _FINDERS)


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every known token shape in ``text`` (to mask them where shown)."""
    if len(text) < _MIN_SHAPE_LEN or not _holds_literal(text):
        return []
    return [m.span() for m in _compiled(_ANY_SOURCE).finditer(text)]


def shape(value: str) -> str | None:
    """What kind of known token ``value`` contains, if any."""
    if len(value) < _MIN_SHAPE_LEN or not _holds_literal(value):
        return None
    m = _compiled(_ANY_SOURCE).search(value)
    if m is None:
        return None
    assert m.lastgroup is not None      # (every alternative is a named group)
    return _SHAPES[int(m.lastgroup[1:])][0]


# published documentation placeholders: AWS's example keys (AKIAIOSFODNN7EXAMPLE,
# wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY) and other vendors' spelled the same way, and
# keys made of a counting run (Supabase's 0123456789abcdef...): a token's shape, no secret
_PLACEHOLDER_TOKEN = re.compile(r"EXAMPLE|0123456789abcdef")


def documented_placeholder(token: str) -> bool:
    """Whether a token-shaped string is a documentation placeholder (never a real key: AWS
    says so of AKIAIOSFODNN7EXAMPLE)."""
    return _PLACEHOLDER_TOKEN.search(token) is not None


# escapes that could spell a token's characters in the source (a YAML double-quoted scalar
# continued with a backslash at the end of a line is not considered: adversarial, not real)
_HIDING_ESCAPES = re.compile(r"\\u00(?:2[bdef]|3[0-9dD]|[4-7][0-9a-fA-F])"
                             r"|\\x(?:2[bdef]|3[0-9dD]|[4-7][0-9a-fA-F])|\\/")


def shape_hints(text: str | None) -> frozenset[str] | None:
    """The token-shaped substrings of a whole source text: a string value can only hold a
    token if it contains one of them. None when the text has escapes that could hide a token
    from this search (then every string is searched). One search over a 3 MB spec replaces
    ~50,000 per-string searches."""
    if text is None or _HIDING_ESCAPES.search(text) is not None:
        return None
    found: set[str] = set()
    for finder, at in _FINDERS:   # C-fast; the token regexes run only near a literal
        for hit in finder.finditer(text):
            p = hit.start()
            for lit, off in at:          # every literal written around this anchor
                i = p - off
                if i >= 0 and text.startswith(lit, i):
                    lo = max(0, i - 64)
                    for rx in _BY_LITERAL[lit]:
                        m = _compiled(rx).search(text, lo, i + _MAX_TOKEN)
                        if m is not None and m.start() <= i < m.end():
                            # up to a space or an escape (a PEM block's line breaks are
                            # written in many ways): the parsed string holds that part
                            found.add(_CUT.split(m.group(0), 1)[0])
    return frozenset(found)


_HIT = object()   # a stack entry standing for a hit found while its parent was read


def _pointer(path: Any) -> str:
    """A lazily built pointer: ``base`` or ``(parent path, key or index)``."""
    toks = []
    while type(path) is tuple:
        path, tok = path
        toks.append(tok)
    return path + jp.encode(reversed(toks))


def _string_hit(v: str, key: str, holder: bool, shape_of: Any) -> str | None:
    what = shape_of(v) if shape_of is not None else None
    if what and all(documented_placeholder(v[a:b]) for a, b in token_spans(v)):
        return None     # only vendors' published example keys (AKIAIOSFODNN7EXAMPLE)
    if what:
        return f"value looks like {what}"
    if holder and not placeholder(v, key):
        return f"{key!r} holds a literal secret value"
    return None


def _followed(root: Any, root_base: str, ref: str, seen: set) -> Iterator[tuple[Any, str]]:
    """The schemas a local ``$ref`` leads to (a chain of them, up to 32 links), each with its
    pointer: ``(schema, pointer)``; none already followed from here (``seen``)."""
    for _ in range(32):
        if not ref.startswith("#"):
            return
        try:
            toks = jp.decode_fragment(ref[1:])
        except ValueError:
            return
        got = jp.walk(root, toks)
        if got is None or not isinstance(got[1], dict):
            return
        target = got[1]
        yield target, root_base + jp.encode(got[0])
        nxt = target.get("$ref")
        if type(nxt) is not str:
            return
        ref = nxt


def scan(value: Any, base: str, seen: set, hints: frozenset[str] | None = None,
         names: bool = True, root: Any = None, root_base: str = "",
         done: Collection[int] = (), shaped: Collection[int] = ()) -> Iterator[tuple[str, str]]:
    """``(pointer, message)`` for secrets in ``value``; containers in ``seen`` or ``done`` are
    skipped (and every container visited is added to ``seen``); in those in ``shaped`` only
    key names are looked for (:func:`_scan_with` gives each kind of scan its sets). ``hints``
    (see :func:`shape_hints`) limits the token-shape search to strings that contain one of them; None searches every string.
    ``names``: also report values of keys named like secrets (False: token shapes only, for
    what no model is given: responses, output schemas, the document outside the tools).
    ``root``: the schema document whose local ``$ref``s (``#/...``) a property named like a
    secret may hold (its pointer is ``root_base``): the values of the schemas they lead to
    count as the property's own, reported where they are written, once per property name.

    One pass over the containers; a string is looked at where its parent is read (a string
    that can hold nothing, the usual case, costs one type check), pointers are built only
    for hits, and hits come out in the order of a depth-first walk (last member first)."""
    if hints is None:
        shape_of: Any = shape
    elif not hints:
        shape_of = None
    else:
        def shape_of(v: str) -> str | None:
            for h in hints:
                if h in v:
                    return shape(v)
            return None
    if shape_of is None and not names:
        # nothing to find (no key names, no token shapes): only mark what is reachable
        _mark(value, seen, done)
        return
    known = _KEY_CACHE
    plain = _PLAIN_KEYS
    holders = _HOLDERS
    hit = _string_hit
    stack: list[tuple[Any, Any, Any, bool]] = [(value, base, "", False)]
    pop, push = stack.pop, stack.append
    while stack:
        v, path, key, holder = pop()
        if v is _HIT:
            yield _pointer(path), key
            continue
        if isinstance(v, dict):
            if id(v) in seen or id(v) in done:
                continue
            seen.add(id(v))
            so = shape_of if id(v) not in shaped else None
            # the keys of a $defs map name schemas, not values: a property that holds one by
            # $ref is what is named (above), as a projection that inlines it shows
            named = names and key not in _SCHEMA_MAPS
            if so is None and not holder and (not named or plain.issuperset(v)):
                # no token shape to look for, no value that a secret's name holds, no key
                # named like a secret (most objects): only the containers in it are read on
                for k, sub in v.items():
                    if isinstance(sub, (dict, list)) and id(sub) not in seen:
                        push((sub, (path, k), k, False))
                continue
            for k, sub in v.items():
                sk = known.get(k) if named else False
                if sk is None:
                    sk = secret_key(k)
                if isinstance(sub, str):
                    if sk:
                        what = so(sub) if so is not None else None
                        if what:
                            yield _pointer((path, k)), f"value looks like {what}"
                        elif not placeholder(sub, k):
                            yield _pointer((path, k)), f"{k!r} holds a literal secret value"
                    elif so is not None or (holder and k in holders):
                        msg = hit(sub, k, holder and k in holders, so)
                        if msg:
                            push((_HIT, (path, k), msg, False))
                elif isinstance(sub, dict) and sk:
                    # a schema property named like a secret: its default/example values count,
                    # and those of the schema its $ref leads to (as a projection inlines it)
                    ref = sub.get("$ref")
                    if root is not None and type(ref) is str:
                        for target, tptr in _followed(root, root_base, ref, seen):
                            mark = (k, id(target))
                            if mark in seen:
                                break
                            seen.add(mark)
                            tso = shape_of if id(target) not in shaped else None
                            for hk, hv in target.items():
                                if hk not in holders:
                                    continue
                                if isinstance(hv, str):
                                    msg = hit(hv, k, True, tso)
                                    if msg:
                                        push((_HIT, (tptr, hk), msg, False))
                                elif isinstance(hv, list):
                                    for i, item in enumerate(hv):
                                        msg = hit(item, k, True, tso) \
                                            if isinstance(item, str) else None
                                        if msg:
                                            push((_HIT, ((tptr, hk), i), msg, False))
                    if id(sub) in seen:
                        continue
                    seen.add(id(sub))
                    sso = shape_of if id(sub) not in shaped else None
                    p = (path, k)
                    for hk, hv in sub.items():
                        if isinstance(hv, str):
                            msg = hit(hv, k, hk in holders, sso)
                            if msg:
                                push((_HIT, (p, hk), msg, False))
                        elif isinstance(hv, (dict, list)) and id(hv) not in seen:
                            push((hv, (p, hk), k, hk in holders))
                elif isinstance(sub, (dict, list)) and id(sub) not in seen:
                    push((sub, (path, k), k, holder and k in holders))
        elif isinstance(v, list):
            if id(v) in seen or id(v) in done:
                continue
            seen.add(id(v))
            so = shape_of if id(v) not in shaped else None
            if so is None and not holder:
                for i, sub in enumerate(v):
                    if isinstance(sub, (dict, list)) and id(sub) not in seen:
                        push((sub, (path, i), key, False))
                continue
            for i, sub in enumerate(v):
                if isinstance(sub, str):
                    msg = hit(sub, key, holder, so)
                    if msg:
                        push((_HIT, (path, i), msg, False))
                elif isinstance(sub, (dict, list)) and id(sub) not in seen:
                    push((sub, (path, i), key, holder))
        elif isinstance(v, str):   # only a string given as ``value`` itself
            msg = hit(v, key, holder, shape_of)
            if msg:
                yield _pointer(path), msg


def _mark(value: Any, seen: set[int], done: Collection[int] = ()) -> None:
    """Add to ``seen`` every container that :func:`scan` would visit in ``value`` (those
    reachable through dicts and lists that are not in ``seen`` or ``done``), as it would."""
    if not isinstance(value, (dict, list)):
        return
    stack = [value]
    pop, push, add = stack.pop, stack.append, seen.add
    while stack:
        v = pop()
        if id(v) in seen or id(v) in done:
            continue
        add(id(v))
        for sub in (v.values() if isinstance(v, dict) else v):
            if isinstance(sub, (dict, list)) and id(sub) not in seen:
                push(sub)


def tool_pointer(tool: Tool, src_ptr: str) -> str | None:
    """The tool pointer whose source is ``src_ptr`` in the tool's own file (None if none
    maps back exactly)."""
    best: tuple[str, str] | None = None
    for prefix, src in tool.origin:
        if src.startswith(("\0", FILE_MARK)):
            continue
        if (src_ptr == src or src_ptr.startswith(src + "/")) and \
                (best is None or len(src) > len(best[1])):
            best = (prefix, src)
    if best is None:
        return None
    cand = best[0] + src_ptr[len(best[1]):]
    return cand if tool.source_pointer(cand) == (tool.file, src_ptr) else None


def _no_shape(value: str) -> None:
    return None


def _hints(ctx: Context, files: Iterable[str]) -> frozenset[str] | None:
    """Token-shape hints of the given source files together (None: search every string)."""
    cache = ctx.cache.setdefault("secret_hints", {})
    out: set[str] = set()
    for file in files:
        if file not in cache:
            src = ctx.catalog.sources.get(file)
            cache[file] = shape_hints(getattr(src, "text", None))
        h = cache[file]
        if h is None:
            return None
        out |= h
    return frozenset(out)


def _seen(ctx: Context) -> tuple[set[int], set[int]]:
    """The containers the full scans saw, and those only a token-shapes scan saw."""
    s = ctx.cache.get("secret_seen")
    if s is None:
        s = ctx.cache["secret_seen"] = (set(), set())
    return s


def _scan_with(sets: tuple[set[int], set[int]], value: Any, base: str,
               hints: frozenset[str] | None, names: bool, root: Any = None,
               root_base: str = "") -> Iterator[tuple[str, str]]:
    """:func:`scan` with the seen sets of :func:`_seen`: a token-shapes scan (``names``
    False) skips what either kind saw; a full scan skips only what full scans saw, so a
    component a response and a later request share is still read for key names, but not
    for token shapes where a token-shapes scan already looked (each is reported once)."""
    full, shapes = sets
    if names:
        return scan(value, base, full, hints, root=root, root_base=root_base, shaped=shapes)
    return scan(value, base, shapes, hints, names=False, done=full)


def _scan_apart(sets: tuple[set[int], set[int]], part: Any, base: str,
                hints: frozenset[str] | None, quiet: bool = False) -> list[tuple[str, str]]:
    """The token-shapes scan of a part of a descriptor no model is given (an output schema,
    the responses), which the full scan of the descriptor then does not enter. ``quiet``
    (:func:`_quiet`): no token shape anywhere, so the scan would only mark what it reaches,
    which no scan of the catalog would read (left out)."""
    found = [] if quiet else list(_scan_with(sets, part, base, hints, names=False))
    sets[0].add(id(part))
    return found


def _quiet(ctx: Context) -> bool:
    """True when no source of the catalog (its files and every tool's) holds a token shape
    (the usual case): then every token-shapes scan finds nothing and only marks what it
    reaches in the seen set of such scans, which only tells later scans where not to look
    for token shapes; a token-shapes scan can be left out."""
    got = ctx.cache.get("secret_quiet")
    if got is None:
        cat = ctx.catalog
        tools = cat.tools
        files = {cat.file, *cat.sources}
        if isinstance(tools, list):
            files.update(t.file for t in tools)
            h = _hints(ctx, [f for f in files if isinstance(f, str)])
            got = h is not None and not h
        else:
            got = False
        ctx.cache["secret_quiet"] = got
    return got


def document_secrets(ctx: Context) -> Iterator[Hit]:
    """The parts of the document outside every tool (run after the tools)."""
    doc = ctx.catalog.document
    if doc is None:
        return
    hints = _hints(ctx, [ctx.catalog.file])
    if hints is not None and not hints:
        return   # token shapes only, and none in the text (the last scan: nothing to mark)
    # token shapes only: no model is given these parts (a `secret` in a response example or
    # an unused component is documentation)
    for ptr, msg in _scan_with(_seen(ctx), doc, "", hints, names=False):
        yield Hit(msg, ptr, None, file=ctx.catalog.file)


@rule("TC105", "secret-material", "error",
      "no secret material: keys such as apiKey, token, password, secret, credential(s) holding "
      "values; known token shapes (cloud keys, GitHub/Slack tokens, private keys, JWTs) "
      "anywhere, `default` and `examples` included", after=document_secrets)
def secret_material(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports secret material in a catalog: keys such as `apiKey`, `token`, `password`, `secret` or
    `credential(s)` that hold a literal value, the `default`/`example(s)`/`enum`/`const` values
    of parameters named so, and strings shaped like real credentials anywhere, descriptions,
    `default` and `examples` included: AWS and Google keys, GitHub, GitLab, Slack, npm, Hugging
    Face, OpenAI, Anthropic, Stripe and SendGrid tokens, private keys, JSON Web Tokens, Slack
    webhook URLs.

    ## Why
    Catalogs are published, cached by clients and sent to models: no secret material belongs in
    one.

    ## Not reported
    Placeholders like `<your-token>`, `${ENV}` or `changeme`, and vendors' published example
    keys, such as AWS's `AKIAIOSFODNN7EXAMPLE`.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "password": {"type": "string", "description": "Password.",
                               "default": "hunter2x"}}}}]}
    ```

    ## Fix
    Revoke a leaked credential; do not only delete it.
    """
    sets = _seen(ctx)
    cat = ctx.catalog
    hints = _hints(ctx, [tool.file])
    quiet = _quiet(ctx)
    raw = tool.raw
    if registry.get(cat.format).canonical_descriptors:
        # the descriptor's keys are the canonical ones: tool pointers. What the tool returns
        # is not given to the model: token shapes only there (scanned first, so seen)
        if isinstance(raw, dict) and isinstance(raw.get("outputSchema"), (dict, list)):
            for ptr, msg in _scan_apart(sets, raw["outputSchema"], "/outputSchema", hints,
                                        quiet):
                yield Hit(msg, ptr)
        schema = raw.get("inputSchema") if isinstance(raw, dict) else None
        for ptr, msg in _scan_with(sets, raw, "", hints, True, schema, "/inputSchema"):
            yield Hit(msg, ptr)
        return
    # other formats: the descriptor as written (source pointers), then the canonical
    # schemas built from it (OpenAPI components bundled into the tool, maybe from other files)
    found = []
    if isinstance(raw, dict) and isinstance(raw.get("responses"), (dict, list)):
        # an operation's responses (their examples...) are never sent by a model
        found += _scan_apart(sets, raw["responses"], tool.pointer + "/responses", hints,
                             quiet)
    found += _scan_with(sets, raw, tool.pointer, hints, True)
    for ptr, msg in found:
        tp = tool_pointer(tool, ptr)
        if tp is not None:
            yield Hit(msg, tp)
        else:
            yield Hit(msg, ptr, tool, file=tool.file)
    hints = _hints(ctx, list(cat.sources) or [tool.file])
    # the input first: a definition both bundle is reported where a model is given it
    for base, s, names in (("/inputSchema", tool.input_schema, True),
                           ("/outputSchema", tool.output_schema, False)):
        if isinstance(s, (dict, list)) and (names or not quiet):
            for ptr, msg in _scan_with(sets, s, base, hints, names, s, base):
                yield Hit(msg, ptr)
