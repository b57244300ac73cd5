"""The league layer: many games. Tournament files (`config`), schedules (`schedule`), running
them (`tournament`, `capacity`), the results folder (`results`), ratings and standings
(`ratings`, `leaderboard`), and SPRT matches (`sprt`, `match`). It may import
`arena.referee`, `arena.games` and `protocol`, never `arena.cli`.
"""
