"""`arena submit URL FOLDER`: pack a bot's folder (its `bot.toml` as everywhere) and upload it
to a ladder as a new version of its author's bot, then wait for the ladder's verdict.

Exit status: 0 the version is accepted (it plays), 1 it is rejected (its reason and report
say why), 2 an error (the ladder out of reach, a refused upload, a bad token or folder).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import command, fail, say

WAIT_STEP = 1.0  # seconds between two looks at a version being validated
WAIT_MOST = 600.0  # seconds a validation is waited for at most


@command("submit")
def submit(
    url: Annotated[str, typer.Argument(help="the ladder's address (http://HOST:8790)")],
    folder: Annotated[Path, typer.Argument(help="the bot's folder (with its bot.toml)")],
    token: Annotated[
        str | None,
        typer.Option("--token", help="the author's token (default: $ARENA_TOKEN)"),
    ] = None,
    no_wait: Annotated[
        bool, typer.Option("--no-wait", help="return once uploaded, without the verdict")
    ] = False,
) -> None:
    """Submit a bot's folder to a ladder as a new version, and wait for its verdict. Exit
    status: 0 accepted, 1 rejected, 2 an error."""
    import httpx

    from arena.league.executors.shipping import pack
    from arena.referee.folders import load_bot

    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        raise fail("give the author's token: --token TOKEN, or $ARENA_TOKEN")
    links = [str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_symlink()]
    if links:
        raise fail(
            f"{folder} holds symbolic links ({', '.join(sorted(links)[:5])}), which a ladder "
            "refuses: put the files themselves in the folder"
        )
    spec = load_bot(str(folder))
    packed = pack(spec)
    if packed is None:
        raise fail(f"{folder} holds no files to submit")
    _, archive = packed
    base = url.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=base, timeout=60.0) as client:
            got = client.post(
                "/api/bots", files={"archive": ("bot.tar.gz", archive)}, headers=headers
            )
            if got.status_code not in (200, 201):
                raise fail(f"the ladder refused {spec.name}: {_error(got)}")
            version = got.json()["version"]
            again = "" if got.status_code == 201 else " (the same files as before)"
            say(f"submitted {version['label']}{again}: {version['status']}")
            if no_wait:
                return
            deadline = time.monotonic() + WAIT_MOST
            while version["status"] == "validating":
                if time.monotonic() > deadline:
                    raise fail(f"{version['label']} is still being validated: look later")
                time.sleep(WAIT_STEP)
                shown = client.get(f"/api/bots/{spec.name}")
                if shown.status_code != 200:
                    raise fail(f"the ladder did not say how {spec.name} is: {_error(shown)}")
                version = next(
                    v for v in shown.json()["versions"] if v["label"] == version["label"]
                )
    except httpx.HTTPError as exc:
        raise fail(f"cannot reach the ladder at {base}: {exc}") from None
    say(f"{version['label']} is {version['status']}: {version['reason']}")
    if version["status"] not in ("active", "retired"):
        raise typer.Exit(1)


def _error(response: Any) -> str:
    """A refused request's sentence (its JSON `error`), else its status."""
    try:
        return str(response.json()["error"])
    except Exception:
        return f"HTTP {response.status_code}"
