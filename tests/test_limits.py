"""Per-session limits are enforced with a message, not a crash or a huge fit."""

from test_app import assert_clean, new_app  # noqa: F401  (fixtures via conftest)

from explorer.app import MAX_POINT_ROUNDS


def test_too_many_point_rounds_gives_a_message_and_no_fit(warm_engine):
    n, rounds = 5000, 500
    assert n * 0.8 * rounds > MAX_POINT_ROUNDS  # 80 % of the points train
    at = new_app(n=n, rounds=rounds).run()
    assert_clean(at, errors_allowed=True)
    messages = " ".join(e.value for e in at.error).replace("\\", "")  # markdown escapes
    assert "point-rounds" in messages and "lower the number of points or the rounds" in messages
    assert not at.get("plotly_chart")


def test_within_the_limit_the_page_fits(warm_engine):
    at = new_app(n=2000, rounds=200).run()
    assert_clean(at)
    assert not at.error
