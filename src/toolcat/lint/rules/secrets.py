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
from typing import Any, Iterator

from toolcat import pointer as jp
from toolcat.lint.registry import Hit, rule
from toolcat.model import FILE_MARK, MCP, MCP_CAPTURE, OPENWOP

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
    ("a private key", ("PRIVATE KEY",),
     r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY"),
    ("a JSON Web Token", ("eyJ",),
     r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    ("an Anthropic API key", ("sk-ant-",), r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{40,}"),
    ("an OpenAI API key", ("T3BlbkFJ",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}"
                                         r"T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    ("an OpenAI project key", ("sk-proj-",), r"\bsk-proj-[A-Za-z0-9_-]{40,}"),
    ("a Stripe live key", ("_live_",), r"\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}\b"),
    ("a SendGrid API key", ("SG.",), r"\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,45}\b"),
    ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("an Azure storage account key", ("AccountKey=",), r"AccountKey=[A-Za-z0-9+/=]{60,}"),
]
_ANY = re.compile("|".join(f"(?P<s{i}>{rx})" for i, (_n, _l, rx) in enumerate(_SHAPES)))
_BY_LITERAL: dict[str, list[re.Pattern]] = {}
for _n, _lits, _rx in _SHAPES:
    for _lit in _lits:
        _BY_LITERAL.setdefault(_lit, []).append(re.compile(_rx))
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
_PLACEHOLDER_WORDS = ("your", "xxx", "***", "<", ">", "${", "{{", "example", "placeholder",
                      "changeme", "change_me", "redacted", "dummy", "sample", "replace",
                      "...", "…", "todo", "insert", "fake", "foo", "bar", "token", "secret",
                      "password", "passwd", "apikey", "api_key", "123", "abc", "test")
_PLAIN_WORDS = frozenset({"string", "none", "null", "true", "false", "undefined", "password",
                          "secret", "token", "apikey", "api_key", "api-key", "bearer", "basic",
                          "required", "optional", "n/a", "na", "empty", "hidden"})
_KEY_CACHE: dict[str, bool] = {}


def secret_key(key: str) -> bool:
    """Does a key name say its value is a secret?"""
    r = _KEY_CACHE.get(key)
    if r is None:
        k = re.sub(r"[^a-z0-9]", "", key.lower())
        r = k.endswith(_SECRET_SUFFIXES) and not k.startswith(_NOT_SECRET_PREFIXES) \
            and not k.endswith(("tokens",))
        if len(_KEY_CACHE) < 50000:
            _KEY_CACHE[key] = r
    return r


def placeholder(value: str, key: str = "") -> bool:
    v = value.strip()
    low = v.lower()
    if len(v) < 6 or low in _PLAIN_WORDS or low == key.lower():
        return True
    if v[0] in "$%" or low.startswith(("env:", "http://", "https://", "file:", "vault:",
                                       "secret:", "arn:")):
        return True
    if len(set(low)) <= 2:
        return True
    if " " in v and len(v.split()) > 2:  # prose, not a credential
        return True
    return any(w in low for w in _PLACEHOLDER_WORDS)


def shape(value: str) -> str | None:
    """What kind of known token ``value`` contains, if any."""
    if len(value) < _MIN_SHAPE_LEN:
        return None
    m = _ANY.search(value)
    if m is None:
        return None
    return _SHAPES[int(m.lastgroup[1:])][0]


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
    find = text.find
    for lit, rxs in _BY_LITERAL.items():   # str.find is C-fast; regexes run only near a hit
        i = find(lit)
        while i != -1:
            lo = max(0, i - 64)
            for rx in rxs:
                m = rx.search(text, lo, i + _MAX_TOKEN)
                if m is not None and m.start() <= i < m.end():
                    found.add(m.group(0))
            i = find(lit, i + 1)
    return frozenset(found)


def scan(value: Any, base: str, seen: set[int], hints: frozenset[str] | None = None
         ) -> Iterator[tuple[str, str]]:
    """``(pointer, message)`` for secrets in ``value``; containers in ``seen`` are skipped
    (and every container visited is added). ``hints`` (see :func:`shape_hints`) limits the
    token-shape search to strings that contain one of them; None searches every string."""
    if hints is None:
        shape_of = shape
    elif not hints:
        shape_of = _no_shape
    else:
        def shape_of(v: str) -> str | None:
            for h in hints:
                if h in v:
                    return shape(v)
            return None
    stack: list[tuple[Any, str, str, bool]] = [(value, base, "", False)]
    while stack:
        v, ptr, key, holder = stack.pop()
        if isinstance(v, str):
            what = shape_of(v)
            if what:
                yield ptr, f"value looks like {what}"
            elif holder and not placeholder(v, key):
                yield ptr, f"{key!r} holds a literal secret value"
            continue
        if isinstance(v, dict):
            if id(v) in seen:
                continue
            seen.add(id(v))
            for k, sub in v.items():
                p = ptr + "/" + jp.escape(k)
                if isinstance(sub, str):
                    if secret_key(k):
                        what = shape_of(sub)
                        if what:
                            yield p, f"value looks like {what}"
                        elif not placeholder(sub, k):
                            yield p, f"{k!r} holds a literal secret value"
                    else:
                        stack.append((sub, p, k, holder and k in _HOLDERS))
                elif isinstance(sub, dict) and secret_key(k):
                    # a schema property named like a secret: its default/example values count
                    if id(sub) in seen:
                        continue
                    seen.add(id(sub))
                    for hk, hv in sub.items():
                        hp = p + "/" + jp.escape(hk)
                        stack.append((hv, hp, k, hk in _HOLDERS))
                elif isinstance(sub, (dict, list)):
                    stack.append((sub, p, k, holder and k in _HOLDERS))
        elif isinstance(v, list):
            if id(v) in seen:
                continue
            seen.add(id(v))
            for i, sub in enumerate(v):
                stack.append((sub, f"{ptr}/{i}", key, holder))


def tool_pointer(tool, src_ptr: str) -> str | None:  # noqa: ANN001
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


def _hints(ctx, files) -> frozenset[str] | None:  # noqa: ANN001
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


def _seen(ctx) -> set[int]:  # noqa: ANN001
    s = ctx.cache.get("secret_seen")
    if s is None:
        s = ctx.cache["secret_seen"] = set()
    return s


def document_secrets(ctx) -> Iterator[Hit]:  # noqa: ANN001
    """The parts of the document outside every tool (run after the tools)."""
    doc = ctx.catalog.document
    if doc is None:
        return
    for ptr, msg in scan(doc, "", _seen(ctx), _hints(ctx, [ctx.catalog.file])):
        yield Hit(msg, ptr, None, file=ctx.catalog.file)


@rule("TC105", "secret-material", "error",
      "no secret material: keys such as apiKey, token, password, secret, credential(s) holding "
      "values; known token shapes (cloud keys, GitHub/Slack tokens, private keys, JWTs) "
      "anywhere, `default` and `examples` included", after=document_secrets)
def secret_material(ctx, tool) -> Iterator[Hit]:
    """No secret material in a catalog: catalogs are published, cached by clients and
    sent to models. Reported are keys such as `apiKey`, `token`, `password`, `secret` or
    `credential(s)` that hold a literal value (placeholders like `<your-token>`, `${ENV}` or
    `changeme` are not), the `default`/`example(s)`/`enum`/`const` values of parameters named
    so, and strings shaped like real credentials anywhere, descriptions, `default` and
    `examples` included: AWS and Google keys, GitHub, GitLab, Slack, npm, Hugging Face,
    OpenAI, Anthropic, Stripe and SendGrid tokens, private keys, JSON Web Tokens, Slack
    webhook URLs. Revoke a leaked credential; do not only delete it."""
    seen = _seen(ctx)
    cat = ctx.catalog
    hints = _hints(ctx, [tool.file])
    if cat.format in (MCP, MCP_CAPTURE, OPENWOP):
        # the descriptor's keys are the canonical ones: tool pointers
        for ptr, msg in scan(tool.raw, "", seen, hints):
            yield Hit(msg, ptr)
        return
    # other formats: the descriptor as written (source pointers), then the canonical
    # schemas built from it (OpenAPI components bundled into the tool, maybe from other files)
    for ptr, msg in scan(tool.raw, tool.pointer, seen, hints):
        tp = tool_pointer(tool, ptr)
        if tp is not None:
            yield Hit(msg, tp)
        else:
            yield Hit(msg, ptr, tool, file=tool.file)
    hints = _hints(ctx, list(cat.sources) or [tool.file])
    for base, s in (("/inputSchema", tool.input_schema), ("/outputSchema", tool.output_schema)):
        if isinstance(s, (dict, list)):
            for ptr, msg in scan(s, base, seen, hints):
                yield Hit(msg, ptr)
