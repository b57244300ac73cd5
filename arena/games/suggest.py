"""Near misses: "did you mean `deals`?" for a word that names nothing (a key of a tournament
file, a ruleset, an option, a bot, a command), one way everywhere it is said."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # how alike a word and a choice must be (difflib's ratio) to be suggested


def near(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices closest to `word`, best first, at most `n` (a choice differing from it only
    in case: that one alone). Compared in lower case, returned as the choices spell them."""
    spelled: dict[str, str] = {}
    for choice in choices:
        spelled.setdefault(choice.lower(), choice)
    lower = word.lower()
    if lower in spelled:
        return [spelled[lower]]
    return [spelled[f] for f in difflib.get_close_matches(lower, list(spelled), n=n, cutoff=CUTOFF)]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ "did you mean `deals`?" (or "`a` or `b`", "`a`, `b` or `c`") for the near misses of
    `word` among `choices`; "" when none is near."""
    found = near(word, choices)
    if not found:
        return ""
    quoted = [f"`{f}`" for f in found]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"did you mean {listed}?"


def unknown(
    what: str, word: str, choices: Iterable[str], kinds: str | None = None, within: str = ""
) -> str:
    """One sentence for a word naming no choice: "unknown ruleset `odn`: did you mean `odin`?
    rulesets: odin, odin-race" (`kinds`: the heading of the list, default `what` + "s";
    `within`: where the word was, "[time]" in "unknown key `moev` in [time]: ...")."""
    listed = list(choices)
    hint = did_you_mean(word, listed)
    text = f"unknown {what} `{word}`" + (f" in {within}" if within else "")
    text += f": {hint}" if hint else ""
    if not listed:
        return text + f" (there are no {kinds or what + 's'})"
    return text + f"{' ' if hint else '; '}{kinds or what + 's'}: {', '.join(listed)}"
