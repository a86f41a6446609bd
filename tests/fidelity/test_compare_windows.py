"""The windows where a whole-value rewrite is tried first: their edges lie in equal text,
on both sides, however much the regions before them changed the length."""

from __future__ import annotations

from fidelity._compare.windows import windows


def test_a_window_after_a_region_that_changed_the_length_starts_in_equal_text() -> None:
    # sent:     100 "A", "xx", 50 "B", "y", 100 "C"
    # received: 100 "A", "xxxx", 50 "B", "z", 100 "C"  (the first region is 2 longer)
    sent = "A" * 100 + "xx" + "B" * 50 + "y" + "C" * 100
    received = "A" * 100 + "xxxx" + "B" * 50 + "z" + "C" * 100
    regions = [(100, 102, 100, 104), (152, 153, 154, 155)]
    (window,) = windows(regions, [1], len(sent), len(received))
    # 32 code points of context before the second region: sent 120, received 122.
    assert (window.sent_start, window.received_start) == (120, 122)
    assert (window.sent_end, window.received_end) == (185, 187)
    assert sent[window.sent_start : 152] == received[window.received_start : 154]
    assert sent[153 : window.sent_end] == received[155 : window.received_end]
    rewritten = sent[window.sent_start : window.sent_end].replace("y", "z")
    assert window.holds(rewritten, received)
