from arena.cli import app

app(prog_name="arena")
