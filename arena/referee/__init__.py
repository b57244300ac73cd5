"""The referee layer: one game between bot processes.

The game loop and its fault policy (`game`), the faults (`bot`), the bot process and how it is
started and ended (`bot`, `spawn`, `processes`, `guardian`), the sandbox (`sandbox`,
`programs`), the in-process bot (`local`), records, replay and the text export (`records`,
`replay`, `export`), the conformance checker (`check`) and the protocol transcript
(`transcript`). It may import `arena.games` and `protocol`, never `arena.league` or
`arena.cli`.
"""
