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
from toolcat.model import MCP, MCP_CAPTURE, OPENWOP

_SHAPES: list[tuple[str, str]] = [
    ("an AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ("a GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{50,}\b"),
    ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
    ("a Slack token", r"\bxox[abposr]-[0-9A-Za-z]{6,}-[0-9A-Za-z-]{6,}"),
    ("a Slack webhook URL",
     r"https://hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{16,}"),
    ("a private key", r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY"),
    ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    ("an Anthropic API key", r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{40,}"),
    ("an OpenAI API key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ"
                          r"[A-Za-z0-9_-]{16,}"),
    ("an OpenAI project key", r"\bsk-proj-[A-Za-z0-9_-]{40,}"),
    ("a Stripe live key", r"\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}\b"),
    ("a SendGrid API key", r"\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,45}\b"),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("an Azure storage account key", r"AccountKey=[A-Za-z0-9+/=]{60,}"),
]
_ANY = re.compile("|".join(f"(?P<s{i}>{rx})" for i, (_n, rx) in enumerate(_SHAPES)))
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


def scan(value: Any, base: str, seen: set[int]) -> Iterator[tuple[str, str]]:
    """``(pointer, message)`` for secrets in ``value``; containers in ``seen`` are skipped
    (and every container visited is added)."""
    stack: list[tuple[Any, str, str, bool]] = [(value, base, "", False)]
    while stack:
        v, ptr, key, holder = stack.pop()
        if isinstance(v, str):
            what = shape(v)
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
                        what = shape(sub)
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
    for ptr, msg in scan(doc, "", _seen(ctx)):
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
    if cat.format in (MCP, MCP_CAPTURE, OPENWOP):
        # the descriptor's keys are the canonical ones: tool pointers
        for ptr, msg in scan(tool.raw, "", seen):
            yield Hit(msg, ptr)
        return
    # other formats: the descriptor as written (source pointers), then the canonical
    # schemas built from it (OpenAPI components bundled into the tool)
    for ptr, msg in scan(tool.raw, tool.pointer, seen):
        yield Hit(msg, ptr, tool, file=tool.file)
    for base, s in (("/inputSchema", tool.input_schema), ("/outputSchema", tool.output_schema)):
        if isinstance(s, (dict, list)):
            for ptr, msg in scan(s, base, seen):
                yield Hit(msg, ptr)
