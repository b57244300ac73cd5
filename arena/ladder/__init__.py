"""The ladder: bots submitted at any time by their authors, validated, played continuously
against bots of similar strength, and rated live (`arena ladder`, `arena submit`).

Above the league (it plays its games through the league's executors and rates them with its
fit) and below the command line: its store of authors, bots and versions (SQLite, in the
ladder's folder), the intake of submitted archives, the matchmaker, and the HTTP API.
"""
