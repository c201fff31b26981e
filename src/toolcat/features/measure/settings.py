"""What `toolcat measure` makes of its options and the configuration: the precedence (the
command line over ``[tool.toolcat.budgets]`` of toolcat.toml / pyproject.toml over the
defaults), ``--as`` (the provider whose request is counted, and the target it implies) and
the :class:`~toolcat.features.measure.Budget` the gates check. The command
(:mod:`toolcat.commands.measure`) reads them in two steps, around the projection options::

    ms = Settings.read(config, gate, tokenizer, to, as_provider, defer)
    popts = options_from_cli(to=ms.to, ...)
    budget = ms.budget(popts, max_bytes, max_tokens, baseline, max_increase)

Every check raises a :class:`~toolcat.errors.UsageError` (exit 2), in the order the
command has always made them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcat.errors import UsageError


def as_providers() -> tuple[str, ...]:
    """`--as`: the providers whose request `measure` can count: each a target of the same
    name, those that say ``counted_as``, in the targets' order; harmony: the openai target's
    function tools as gpt-oss reads them (toolcat.features.measure.harmony)."""
    from toolcat.formats.targets import get, names

    return (*(n for n in names() if vars(type(get(n))).get("counted_as")), "harmony")


#: what the --as harmony figures are counted with (the label in reports and baselines)
HARMONY_TOKENS = "o200k_harmony"
#: --gate's sides
GATES = ("after", "before", "upfront")


def config_budget(path: str | None = None) -> dict:
    """Budgets from ``[tool.toolcat.budgets]`` of the configuration (``--config`` or the
    nearest ``toolcat.toml`` / ``pyproject.toml`` upwards from the current folder)."""
    from toolcat.config import load_config
    from toolcat.features.lint.profiles import PROFILES

    cfg = load_config(path, profiles=PROFILES)
    budgets = getattr(cfg, "budgets", None)
    out = dict(budgets) if isinstance(budgets, dict) else {}
    if cfg.ref_root is not None:
        out["root"] = cfg.ref_root    # the configuration's `root` (not a budget)
    return out


def _int_budget(cfg: dict, key: str) -> int | None:
    v = cfg.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise UsageError(f"[tool.toolcat.budgets] {key} must be a non-negative integer "
                         f"(got {v!r})")
    return v


@dataclass
class Settings:
    """The measure options after the configuration: ``to`` as ``--as`` implies it."""

    gate: str
    tokenizer: str
    to: str | None
    as_provider: str | None
    cfg: dict = field(default_factory=dict)

    @classmethod
    def read(cls, config: str | None, gate: str | None, tokenizer: str | None,
             to: str | None, as_provider: str | None, defer: str) -> "Settings":
        """The gate, tokenizer and target of the options, the configuration filling in."""
        from toolcat.features.measure import tokenizer_name

        cfg = config_budget(config)
        if gate is None:
            gate = cfg.get("gate", "before")
        if tokenizer is None:
            tokenizer = cfg.get("tokenizer", "o200k_base")
        if gate not in GATES:
            raise UsageError(f"--gate must be after, before or upfront (got {gate!r})")
        if gate == "upfront" and defer == "none":
            raise UsageError("--gate upfront needs --defer all or --defer auto")
        if as_provider is not None:
            if as_provider not in as_providers():
                raise UsageError(f"--as must be one of {', '.join(as_providers())} (got "
                                 f"{as_provider!r})")
            as_target = "openai" if as_provider == "harmony" else as_provider
            if to is not None and to != as_target:
                raise UsageError(f"--as {as_provider} counts the {as_target} target: leave "
                                 f"out --to {to}")
            to = as_target
            if as_provider == "harmony" and tokenizer_name(tokenizer) != "o200k_base":
                raise UsageError("--as harmony counts with the harmony encoding (o200k_base "
                                 "and its special tokens): leave out --tokenizer")
        assert isinstance(gate, str) and isinstance(tokenizer, str)
        return cls(gate, tokenizer, to, as_provider, cfg)

    @property
    def root(self) -> str | None:
        """The configuration's ``root`` (--root's default)."""
        return self.cfg.get("root")

    @property
    def tok(self) -> str:
        """The BPE encoding counted with (checked)."""
        from toolcat.features.measure import tokenizer_name

        return tokenizer_name(self.tokenizer)

    @property
    def tok_label(self) -> str:
        """The figures' tokenizer as reports and baselines name it."""
        return HARMONY_TOKENS if self.as_provider == "harmony" else self.tok

    def budget(self, popts: Any, max_bytes: int | None, max_tokens: int | None,
               baseline: str | None, max_increase: float | None) -> Any:
        """The :class:`~toolcat.features.measure.Budget`: the limits of the options, else of the
        configuration; the baseline file read."""
        from toolcat.features.measure import Budget, pct_fraction, read_baseline

        if self.as_provider == "harmony" and popts.defer.active:
            raise UsageError("--defer: --as harmony renders no deferred tools (use --as "
                             "anthropic or openai-responses)")
        label = self.tok_label
        if max_increase is not None and baseline is None:
            raise UsageError("--max-increase needs --baseline FILE")
        budget = Budget(
            max_bytes=max_bytes if max_bytes is not None else _int_budget(self.cfg, "max-bytes"),
            max_tokens=max_tokens if max_tokens is not None
            else _int_budget(self.cfg, "max-tokens"),
            gate=self.gate,
        )
        if baseline is not None:
            budget.baseline = read_baseline(baseline, label)
            budget.baseline_file = baseline
            inc = max_increase if max_increase is not None else self.cfg.get("max-increase")
            budget.max_increase = pct_fraction(inc if inc is not None else 0)
        return budget
