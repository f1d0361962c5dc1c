"""The floor's one page: the round bar and the page's captions, no chart (floor_app.py)."""

from explorer import app

ctx = app.page("Floor: the sidebar and the round bar, no chart")


def body(ctx):
    app.round_bar(ctx)


app.run_page(body, ctx)
