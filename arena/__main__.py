from arena.cli.app import app

app(prog_name="arena")
