"""The league layer: many games. Tournament files (`config`), schedules behind one interface
(`schedule`, a `Schedule` per format), playing many games at once (`executors`: in this
process through `pool` and `capacity`, or on worker processes and Dask clusters) for
tournaments (`tournament`) and SPRT matches (`sprt`, `match`, `match_results`), the results
folder (`results`), ratings, standings and fault reports (`ratings`, `leaderboard`,
`fault_report`). It may import `arena.referee`, `arena.games` and `protocol`, never
`arena.cli`.
"""
