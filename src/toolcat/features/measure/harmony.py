"""What OpenAI's open-weight models (gpt-oss) read for the tools: the harmony rendering.

An OpenAI-compatible server for gpt-oss receives the function tools as JSON, like OpenAI's
own API, and renders them into the developer message in the harmony format (a TypeScript-like
``namespace functions { ... }`` block) before the model sees them. ``measure --as harmony``
counts that rendering with the model's own encoding, made by the ``openai-harmony`` package
(OpenAI's reference renderer; ``pip install 'toolcat[harmony]'``): the figure is exact.

The tokens of a tools array are those of a developer message carrying the tools minus those
of the same message without them (the message's own frame is not the tools' cost). The
package reads its vocabulary from ``TIKTOKEN_ENCODINGS_BASE``; toolcat points it at the
o200k_base rank file it ships (decompressed into a private temporary folder for the load),
so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from typing import Any

from toolcat.errors import ToolcatError, UsageError

#: the ``--as`` name (tools are written for the OpenAI target: function objects)
NAME = "harmony"
TARGET = "openai"

_encoding: Any = None
_LOADING = threading.Lock()


def _load() -> Any:
    if _encoding is not None:
        return _encoding
    # once, by one thread: the environment variable below is the process's
    with _LOADING:
        return _load_once()


def _load_once() -> Any:
    global _encoding
    if _encoding is not None:
        return _encoding
    try:
        import openai_harmony as oh
    except ImportError:
        raise UsageError("--as harmony needs the openai-harmony package: "
                         "pip install 'toolcat[harmony]'") from None
    from toolcat.tokens import rank_file_bytes

    with tempfile.TemporaryDirectory(prefix="toolcat-harmony-") as d:
        with open(os.path.join(d, "o200k_base.tiktoken"), "wb") as fh:
            fh.write(rank_file_bytes("o200k_base"))
        old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
        os.environ["TIKTOKEN_ENCODINGS_BASE"] = d
        try:
            _encoding = (oh, oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS))
        finally:
            if old is None:
                os.environ.pop("TIKTOKEN_ENCODINGS_BASE", None)
            else:
                os.environ["TIKTOKEN_ENCODINGS_BASE"] = old
    return _encoding


def _functions(items: Any) -> list[dict]:
    """The function bodies of OpenAI tool items (one item or an array of them)."""
    if isinstance(items, dict):
        items = [items]
    out = []
    for it in items if isinstance(items, list) else []:
        fn = it.get("function") if isinstance(it, dict) else None
        out.append(fn if isinstance(fn, dict) else it)
    return out


def _message_tokens(oh: Any, enc: Any, tools: list | None) -> list[int]:
    dev = oh.DeveloperContent.new()
    if tools:
        dev = dev.with_function_tools(tools)
    conv = oh.Conversation.from_messages([oh.Message.from_role_and_content(oh.Role.DEVELOPER,
                                                                           dev)])
    return enc.render_conversation(conv)


def render(items: Any) -> str:
    """The harmony text of the developer message that carries these tools."""
    oh, enc = _load()
    return enc.decode(_message_tokens(oh, enc, _tools(oh, items)))


def _tools(oh: Any, items: Any) -> list:
    tools = []
    for fn in _functions(items):
        params = fn.get("parameters")
        tools.append(oh.ToolDescription.new(
            str(fn.get("name", "")), str(fn.get("description") or ""),
            parameters=params if isinstance(params, dict) else None))
    return tools


def count(items: Any) -> int:
    """Tokens the tools add to the developer message (exact: the model's own encoding)."""
    oh, enc = _load()
    tools = _tools(oh, items)
    if not tools:
        return 0
    try:
        return len(_message_tokens(oh, enc, tools)) - len(_message_tokens(oh, enc, None))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - the renderer is Rust: a panic is BaseException
        names = ", ".join(repr(f.get("name")) for f in _functions(items)[:3])
        raise ToolcatError(f"openai-harmony cannot render the tools {names}: "
                           f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


class HarmonyCounter:
    """A :class:`toolcat.tokens.Counter` for ``measure --as harmony``: each submitted text is
    the canonical JSON of OpenAI tool items (or of one item), counted as rendered."""

    name = NAME

    def __init__(self) -> None:
        _load()
        self._results: list[int] = []

    def submit(self, data: bytes | str) -> int:
        self._results.append(count(json.loads(data)))
        return len(self._results) - 1

    def results(self) -> list[int]:
        return self._results

    def close(self, kill: bool = False) -> None:
        """Nothing to release (the counting is done in this process)."""
