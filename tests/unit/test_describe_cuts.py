"""describe.truncate reads the boundaries from the last one back and stops at the first that
fits; tool_description skips the sentence split when nothing from the cut on obliges. Both
must give what the forward reading of every boundary gives (the module doc's rule)."""

from __future__ import annotations

import random

from toolcat.features.project import describe


def _forward(text: str, limit: int) -> str:
    """The module doc's rule, every boundary read in order: the last sentence end that fits,
    else the last word boundary that fits with the ellipsis."""
    s = describe.collapse(text)
    if describe.length(s) <= limit:
        return s
    if limit <= 0:
        return ""
    best_sentence = best_word = None
    ell = describe.length(describe.ELLIPSIS)
    tags = describe._tag_spans(s, len(s))
    for pos, sentence in describe._boundaries(s):
        if pos == 0 or any(a < pos < b for a, b in tags):
            continue
        cut = s[:pos].rstrip()
        width = describe.length(cut)
        if sentence and width <= limit:
            best_sentence = cut
        if width + ell <= limit:
            best_word = cut
    if best_sentence:
        return best_sentence
    if best_word:
        word = best_word.rstrip(",;:-–—(/")
        return word + describe.ELLIPSIS if word else ""
    return ""


_PIECES = ["a", "Word", "two words", "e.g.", "Done.", "Really!", "Why?", " ", "  ", '"', ")",
           "»", "。", "日本語", "😀", "é", "<a href=\"x y\">", "</a>", ",", ";", "—", "(", "x" * 25]


def test_truncate_is_the_forward_rule() -> None:
    rnd = random.Random(35)
    for _ in range(20000):
        text = "".join(rnd.choice(_PIECES) for _ in range(rnd.randint(0, 30)))
        limit = rnd.randint(0, 60)
        assert describe.truncate(text, limit) == _forward(text, limit), (text, limit)


def test_an_obligation_after_the_cut_is_kept_and_none_is_made_up() -> None:
    lead = "Lists the repositories of the organization, newest first. " * 3
    kept = describe.tool_description(lead + "You must call auth first.", 120)
    assert kept.endswith("You must call auth first.")
    # an obligation before the cut only: the plain cut
    early = "You must be signed in. " + lead
    assert describe.tool_description(early, 120) == describe.truncate(early, 120)
